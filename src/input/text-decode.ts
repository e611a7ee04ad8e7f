import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { InputFileError } from './input-rows.js';

/** Encodings `--encoding` accepts (WHATWG labels Node's TextDecoder knows), by the name users type. */
export const INPUT_ENCODINGS: readonly string[] = [
  'utf-8',
  'utf-16le',
  'utf-16be',
  'windows-1252',
  'latin1',
  'iso-8859-15',
  'macintosh',
];

/**
 * The text of an input file, decoded as it streams. A byte order mark decides (UTF-8, UTF-16LE,
 * UTF-16BE; it is dropped); else `encoding` (for legacy 8-bit files); else UTF-8, checked: bytes
 * that are not UTF-8, or a NUL (a binary file, or UTF-16 without its mark), stop the read with
 * an InputFileError naming the line and the likely encoding. Text is never sent altered.
 */
export async function* decodeText(
  source: AsyncIterable<unknown>,
  file: string,
  encoding?: string,
): AsyncGenerator<string> {
  const chunks = bytesOf(source);
  let head: Buffer = Buffer.alloc(0);
  let first: IteratorResult<Buffer> | undefined;
  // Enough bytes to see a byte order mark (3 at most).
  while (head.length < 3) {
    first = await chunks.next();
    if (first.done) break;
    head = head.length === 0 ? first.value : Buffer.concat([head, first.value]);
  }
  const bom = bomOf(head);
  const label = bom?.encoding ?? normalEncoding(encoding);
  const rest = async function* (): AsyncGenerator<Buffer> {
    if (head.length > (bom?.length ?? 0)) yield head.subarray(bom?.length ?? 0);
    if (first?.done) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  };
  if (label === 'utf-8') yield* checkedUtf8(rest(), file);
  else yield* decodedAs(rest(), file, label);
}

/**
 * For a file (not stdin): checks that it decodes, before any row is read, so a file that is
 * not UTF-8 is refused with nothing sent. A fast pass (isUtf8 and a NUL search per chunk);
 * only a file that fails it is decoded again to name the line.
 */
export async function checkFileText(path: string, file: string, encoding?: string): Promise<void> {
  if (normalEncoding(encoding) !== 'utf-8') return;
  let carry: Buffer | undefined;
  let first = true;
  let bad = false;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buf: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    if (first) {
      first = false;
      if (bomOf(buf)?.encoding.startsWith('utf-16')) return;
    }
    const whole = wholeLength(buf);
    const part = whole === buf.length ? buf : buf.subarray(0, whole);
    carry = whole === buf.length ? undefined : Buffer.from(buf.subarray(whole));
    if (!isUtf8(part) || part.indexOf(0) >= 0) {
      bad = true;
      break;
    }
  }
  if (!bad && !carry) return;
  // Throws the error that names the line.
  for await (const text of decodeText(createReadStream(path), file, encoding)) void text;
}

async function* bytesOf(source: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
    if (buf.length > 0) yield buf;
  }
}

function bomOf(head: Buffer): { encoding: string; length: number } | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

function normalEncoding(encoding: string | undefined): string {
  const e = (encoding ?? 'utf-8').toLowerCase();
  return e === 'utf8' ? 'utf-8' : e;
}

/** UTF-8, checked chunk by chunk (a character cut between chunks waits for its rest). */
async function* checkedUtf8(chunks: AsyncIterable<Buffer>, file: string): AsyncGenerator<string> {
  let carry: Buffer | undefined;
  let lines = 1;
  for await (const chunk of chunks) {
    const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    const whole = wholeLength(buf);
    const part = whole === buf.length ? buf : buf.subarray(0, whole);
    carry = whole === buf.length ? undefined : Buffer.from(buf.subarray(whole));
    if (!isUtf8(part)) refuseUtf8(file, part, lines);
    const text = part.toString('utf8');
    if (text.includes('\0')) refuseNul(file, text, lines);
    lines += lineBreaks(text);
    if (text.length > 0) yield text;
  }
  if (carry) refuseUtf8(file, carry, lines);
}

/** Any other encoding, by TextDecoder; fatal, so a lone UTF-16 surrogate is refused too. */
async function* decodedAs(chunks: AsyncIterable<Buffer>, file: string, label: string): AsyncGenerator<string> {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true, ignoreBOM: true });
  } catch {
    throw new InputFileError(file, `unknown encoding "${label}" (--encoding takes ${INPUT_ENCODINGS.join(', ')})`);
  }
  let lines = 1;
  const decode = (buf: Buffer | undefined): string => {
    try {
      return buf ? decoder.decode(buf, { stream: true }) : decoder.decode();
    } catch {
      throw new InputFileError(file, `not valid ${decoder.encoding} text after line ${lines}`);
    }
  };
  for await (const chunk of chunks) {
    const text = decode(chunk);
    if (text.includes('\0')) refuseNul(file, text, lines);
    lines += lineBreaks(text);
    if (text.length > 0) yield text;
  }
  const text = decode(undefined);
  if (text.length > 0) yield text;
}

/** The length of `buf` without an incomplete UTF-8 sequence at its end. */
function wholeLength(buf: Buffer): number {
  const n = buf.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = buf[n - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  // A bare CR ends a line too (classic Mac files); one of a CRLF is counted at its LF.
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) count++;
  return count;
}

function refuseUtf8(file: string, buf: Buffer, linesBefore: number): never {
  const at = firstInvalidUtf8(buf);
  const line = linesBefore + lineBreaks(buf.subarray(0, at).toString('latin1'));
  const nul = buf.indexOf(0) >= 0;
  const guess = nul ? utf16Guess(buf) : 'windows-1252';
  // Line ends of CR alone are the old Mac's: Excel 2011 for Mac saves "CSV" in Mac OS Roman.
  const mac = !nul && buf.indexOf(13) >= 0 && buf.indexOf(10) < 0;
  const hint = nul
    ? `it looks like ${guess} without a byte order mark (or not a text file): try --encoding ${guess}`
    : mac
      ? 'it looks like Mac OS Roman (line ends of CR alone: Excel for Mac\'s "CSV"): ' +
        'try --encoding macintosh, or save the file as "CSV UTF-8"'
      : 'it looks like windows-1252 (Excel\'s "CSV" on Windows; latin1 is close): ' +
        'try --encoding windows-1252, or save the file as "CSV UTF-8"';
  throw new InputFileError(
    file,
    `not UTF-8 at line ${line} (byte 0x${buf[at].toString(16).padStart(2, '0')})`,
    undefined,
    hint,
  );
}

function refuseNul(file: string, text: string, linesBefore: number): never {
  const at = text.indexOf('\0');
  const line = linesBefore + lineBreaks(text.slice(0, at));
  const guess = utf16Guess(Buffer.from(text, 'latin1'));
  throw new InputFileError(
    file,
    `a NUL character at line ${line}: this is not a text file, or it is UTF-16 without a byte order mark`,
    undefined,
    `for UTF-16 text try --encoding ${guess}; else give a CSV, NDJSON or JSON file`,
  );
}

// UTF-16 text that is mostly ASCII has its zero bytes at odd offsets (LE) or even ones (BE).
function utf16Guess(buf: Buffer): string {
  let even = 0;
  let odd = 0;
  for (let i = 0; i < Math.min(buf.length, 4096); i++) {
    if (buf[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  return even > odd ? 'utf-16be' : 'utf-16le';
}

/** Offset of the first byte that does not belong to valid UTF-8 (only called once a check failed). */
function firstInvalidUtf8(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    const need =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (need === 0 || i + need > buf.length) return i;
    if (need > 1 && !isUtf8(buf.subarray(i, i + need))) return i;
    i += need;
  }
  return Math.max(0, buf.length - 1);
}
