import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  formatFromPath,
  InputFileError,
  openInput,
  type InputRow,
  type InputSpec,
} from '../../src/input/input-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cnv-input-'));
let n = 0;
function file(name: string, content: string | Buffer): string {
  const path = join(dir, `${n++}-${name}`);
  writeFileSync(path, content);
  return path;
}

async function rows(path: string, opts: Omit<InputSpec, 'path'> & { stdin?: Readable } = {}): Promise<InputRow[]> {
  const input = await openInput(opts.stdin ?? Readable.from([]), { ...opts, path });
  const out: InputRow[] = [];
  // Every row gets its place among the rows, in order; the tests below compare the rest.
  for await (const { index, ...row } of input.rows) {
    expect(index).toBe(out.length);
    out.push(row);
  }
  return out;
}

/** A stream that hands out the text in small pieces, to cross chunk boundaries everywhere. */
function trickle(text: string, size = 3): Readable {
  const buf = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) chunks.push(buf.subarray(i, i + size));
  return Readable.from(chunks);
}

async function failure(promise: Promise<unknown>): Promise<InputFileError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(InputFileError);
    return err as InputFileError;
  }
  throw new Error('expected an InputFileError');
}

describe('CSV input', () => {
  it('strips the BOM, keeps quoted commas and newlines, and numbers rows by their first physical line', async () => {
    const path = file(
      'a.csv',
      '\uFEFFemail,note\nada@example.com,"Hello, world"\n\ngrace@example.com,"two\nlines"\nlinus@example.com,"say ""hi"""\n',
    );
    expect(await rows(path)).toEqual([
      { line: 2, values: { email: 'ada@example.com', note: 'Hello, world' }, textual: true },
      { line: 4, values: { email: 'grace@example.com', note: 'two\nlines' }, textual: true },
      { line: 6, values: { email: 'linus@example.com', note: 'say "hi"' }, textual: true },
    ]);
  });

  it('CRLF line ends, a CRLF inside a quoted value kept exactly, and a last row without a line end', async () => {
    const path = file('crlf.csv', 'email,note\r\na@example.com,"x\r\ny"\r\nb@example.com,z');
    const got = await rows(path);
    expect(got.map((r) => [r.line, r.values?.email, r.values?.note])).toEqual([
      [2, 'a@example.com', 'x\r\ny'],
      [4, 'b@example.com', 'z'],
    ]);
  });

  it('another delimiter, by flag or by the .tsv extension', async () => {
    expect((await rows(file('semi.csv', 'email;n\na@example.com;1,5\n'), { delimiter: ';' }))[0].values).toEqual({
      email: 'a@example.com',
      n: '1,5',
    });
    expect((await rows(file('t.tsv', 'email\tn\na@example.com\t2\n')))[0].values).toEqual({
      email: 'a@example.com',
      n: '2',
    });
  });

  it('a row with the wrong number of fields, or a stray quote, is an invalid row; the rest still reads', async () => {
    const path = file('bad-rows.csv', 'email,note\na@example.com,x,extra\nb@example.com,bad"quote\nc@example.com,ok\n');
    const got = await rows(path);
    expect(got[0]).toEqual({ line: 2, error: 'has 3 field(s), the header has 2', textual: true });
    expect(got[1]).toMatchObject({ line: 3, error: expect.stringMatching(/^malformed CSV: .*quote/i) });
    expect(got[2]).toEqual({ line: 4, values: { email: 'c@example.com', note: 'ok' }, textual: true });
  });

  it('a quote that is never closed, or a bad closing quote, makes the file unreadable, naming the line', async () => {
    const unclosed = file(
      'unclosed.csv',
      'email,note\na@example.com,ok\nb@example.com,"never closed\nc@example.com,x\n',
    );
    const e1 = await failure(rows(unclosed));
    expect(e1.message).toMatch(new RegExp(`${unclosed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line \\d+: .*[Qq]uote`));
    const closing = file('closing.csv', 'email,note\na@example.com,"bad"x\n');
    expect((await failure(rows(closing))).message).toMatch(/line 2: Invalid Closing Quote/);
  });

  it('rows before a fatal error are still delivered', async () => {
    const path = file('late.csv', 'email\na@example.com\nb@example.com\n"c@example.com\n');
    const input = await openInput(Readable.from([]), { path });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const row of input.rows) seen.push(row.line);
      })(),
    ).rejects.toThrow(/line 4/);
    expect(seen).toEqual([2, 3]);
  });

  it('a bad header is an error: empty file, unnamed or repeated column', async () => {
    expect((await failure(rows(file('empty.csv', '')))).message).toMatch(/empty: expected a header row/);
    expect((await failure(rows(file('unnamed.csv', 'email,,x\n')))).message).toMatch(
      /line 1: column 2 of the header has no name/,
    );
    expect((await failure(rows(file('unnamed-first.csv', ',email\n')))).message).toMatch(
      /line 1: column 1 of the header has no name/,
    );
    expect((await failure(rows(file('twice.csv', 'email,email\n')))).message).toMatch(/"email" appears twice/);
  });

  it('a missing file or a directory is an error before any row', async () => {
    expect((await failure(openInput(Readable.from([]), { path: join(dir, 'nope.csv') }))).message).toMatch(
      /nope\.csv: no such file/,
    );
    expect((await failure(openInput(Readable.from([]), { path: dir }))).message).toMatch(/is a directory/);
  });
});

describe('CSV record size', () => {
  it('an unclosed quote that would swallow the file ends it once 10 MiB of one record were read (exit 2, naming where the quote opened)', async () => {
    let read = 0;
    async function* text() {
      yield 'email,note\na@example.com,ok\nb@example.com,"oops\n';
      for (let i = 0; i < 1024; i++) {
        read += 65_536;
        yield 'y'.repeat(65_535) + '\n';
      }
    }
    const seen: InputRow[] = [];
    const err = await failure(
      (async () => {
        for await (const row of (await openInput(Readable.from(text()), { path: '-', format: 'csv' })).rows)
          seen.push(row);
      })(),
    );
    expect(err.message).toBe(
      'stdin line 3: the record is larger than 10 MiB: a quote opened on line 3 is not closed, or not a CSV file?',
    );
    expect(seen.map((r) => r.values)).toEqual([{ email: 'a@example.com', note: 'ok' }]);
    expect(read).toBeLessThan(11 * 1024 * 1024);
  });

  it('counts UTF-8 bytes, not characters: a cell of 6 Mi "é" (12 MiB) is refused, one of 5 Mi - 100 is read', async () => {
    const csv = (n: number) => Readable.from([`email,note\na@example.com,${'é'.repeat(n)}\n`]);
    const refused = await failure(
      (async () => {
        for await (const _ of (await openInput(csv(6 * 1024 * 1024), { path: '-', format: 'csv' })).rows);
      })(),
    );
    expect(refused.message).toBe('stdin line 2: the record is larger than 10 MiB: not a CSV file?');
    const [row] = await rows('-', { stdin: csv(5 * 1024 * 1024 - 100), format: 'csv' });
    expect((row.values!.note as string).length).toBe(5 * 1024 * 1024 - 100);
  });
});

describe('NDJSON input', () => {
  it('one object per line, blank lines skipped, a bad line is an invalid row with its line', async () => {
    const path = file('a.ndjson', '\uFEFF{"email":"a@example.com","n":1}\n\n{oops\n[1,2]\r\n{"email":"b@example.com"}');
    expect(await rows(path)).toEqual([
      { line: 1, values: { email: 'a@example.com', n: 1 } },
      { line: 3, error: expect.stringMatching(/^not valid JSON/) },
      { line: 4, error: 'expected a JSON object, got an array' },
      { line: 5, values: { email: 'b@example.com' } },
    ]);
  });

  it('reads the same however the text is cut: a CRLF split between chunks is one line end, a bare CR one too', async () => {
    const text = '{"a":1}\r\n{"a":2}\r{"a":3}\n\r\n{"a":4}';
    for (const size of [1, 2, 3, 5, 8]) {
      expect(await rows('-', { stdin: trickle(text, size), format: 'ndjson' }), `pieces of ${size}`).toEqual([
        { line: 1, values: { a: 1 } },
        { line: 2, values: { a: 2 } },
        { line: 3, values: { a: 3 } },
        { line: 5, values: { a: 4 } },
      ]);
    }
  });

  it('a line larger than 10 MiB ends the file (exit 2, its line named) once 10 MiB of it were read: never held whole', async () => {
    let read = 0;
    async function* endless() {
      yield '{"email":"a@example.com"}\n{"note":"';
      // 64 MB at most, in 64 KiB pieces; the reader must stop long before.
      for (let i = 0; i < 1024; i++) {
        read += 65_536;
        yield 'x'.repeat(65_536);
      }
    }
    const seen: InputRow[] = [];
    const err = await failure(
      (async () => {
        for await (const row of (await openInput(Readable.from(endless()), { path: '-', format: 'ndjson' })).rows)
          seen.push(row);
      })(),
    );
    expect(err.message).toBe('stdin line 2: the line is larger than 10 MiB: not NDJSON?');
    expect(err.exitCode).toBe(2);
    expect(seen).toEqual([{ line: 1, index: 0, values: { email: 'a@example.com' } }]);
    expect(read).toBeLessThan(11 * 1024 * 1024);
    // In bytes: 4 Mi characters of 3 bytes each are 12 MiB.
    const wide = await failure(
      (async () => {
        for await (const _ of (
          await openInput(Readable.from([`{"note":"${'€'.repeat(4 * 1024 * 1024)}"}\n`]), {
            path: '-',
            format: 'ndjson',
          })
        ).rows);
      })(),
    );
    expect(wide.message).toBe('stdin line 1: the line is larger than 10 MiB: not NDJSON?');
  });
});

describe('JSON array input', () => {
  it('streams the elements with the line each starts on, across chunk boundaries', async () => {
    const text =
      '\uFEFF[\n  {"email": "a@example.com", "tags": ["x", "]"], "s": "say \\"}\\""},\n  {\n    "email": "b@example.com"\n  },\n  {"email":"c@example.com"}\n]\n';
    const got = await rows('-', { stdin: trickle(text), format: 'json' });
    expect(got).toEqual([
      { line: 2, values: { email: 'a@example.com', tags: ['x', ']'], s: 'say "}"' } },
      { line: 3, values: { email: 'b@example.com' } },
      { line: 6, values: { email: 'c@example.com' } },
    ]);
  });

  it('an element that is not an object, or not valid JSON, is an invalid row', async () => {
    const got = await rows(file('mixed.json', '[{"a":1}, 42, {"b": tru}, null, {"c":3}]'));
    expect(got).toEqual([
      { line: 1, values: { a: 1 } },
      { line: 1, error: 'expected a JSON object, got a number' },
      { line: 1, error: expect.stringMatching(/^not valid JSON/) },
      { line: 1, error: 'expected a JSON object, got null' },
      { line: 1, values: { c: 3 } },
    ]);
    expect(await rows(file('empty-array.json', ' [ ] '))).toEqual([]);
  });

  it('a broken array structure makes the file unreadable, naming the line', async () => {
    expect((await failure(rows(file('obj.json', '{"a":1}'), { format: 'json' }))).message).toMatch(
      /line 1: expected a JSON array/,
    );
    expect((await failure(rows(file('open.json', '[{"a":1},\n{"b":2}\n')))).message).toMatch(/not closed/);
    expect((await failure(rows(file('trailing.json', '[{"a":1},\n]')))).message).toMatch(
      /line 2: expected a value after ","/,
    );
    expect((await failure(rows(file('after.json', '[{"a":1}]\n{"b":2}')))).message).toMatch(
      /line 2: unexpected "\{" after the end/,
    );
    expect((await failure(rows(file('unterminated.json', '[{"a":"x}]')))).message).toMatch(/is not closed/);
  });

  it('keeps only one element in memory: a large array streams', async () => {
    async function* big() {
      yield '[';
      for (let i = 0; i < 50_000; i++) yield `${i ? ',' : ''}\n{"email":"u${i}@example.com"}`;
      yield '\n]';
    }
    let count = 0;
    let last: InputRow | undefined;
    const input = await openInput(Readable.from(big()), { path: '-', format: 'json' });
    for await (const row of input.rows) {
      count++;
      last = row;
    }
    expect(count).toBe(50_000);
    expect(last).toEqual({ line: 50_001, index: 49_999, values: { email: 'u49999@example.com' } });
  });

  it('elements on one line share the line and keep their own place: two identical rows are two rows', async () => {
    const got: InputRow[] = [];
    for await (const row of (await openInput(Readable.from(['[{"e":"x"},{"e":"x"},', '{"e":"y"}]']), { path: '-' }))
      .rows)
      got.push(row);
    expect(got).toEqual([
      { line: 1, index: 0, values: { e: 'x' } },
      { line: 1, index: 1, values: { e: 'x' } },
      { line: 1, index: 2, values: { e: 'y' } },
    ]);
  });
});

describe('format choice', () => {
  it('by extension', () => {
    expect(formatFromPath('a.CSV')).toBe('csv');
    expect(formatFromPath('a.jsonl')).toBe('ndjson');
    expect(formatFromPath('a.ndjson')).toBe('ndjson');
    expect(formatFromPath('a.json')).toBe('json');
    expect(formatFromPath('a.txt')).toBeUndefined();
  });

  it('sniffed from stdin when no --input-format: [ is JSON, { is NDJSON, else CSV', async () => {
    expect((await openInput(Readable.from(['  [{"a":1}]']), { path: '-' })).format).toBe('json');
    expect((await openInput(Readable.from(['{"a":1}\n']), { path: '-' })).format).toBe('ndjson');
    const csv = await openInput(Readable.from(['email\n', 'a@example.com\n']), { path: '-' });
    expect(csv.format).toBe('csv');
    const got: InputRow[] = [];
    for await (const row of csv.rows) got.push(row);
    expect(got).toEqual([{ line: 2, index: 0, values: { email: 'a@example.com' }, textual: true }]);
  });

  it('--input-format wins over the extension', async () => {
    expect(await rows(file('data.txt', '{"a":1}\n'), { format: 'ndjson' })).toEqual([{ line: 1, values: { a: 1 } }]);
  });
});

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/inputs/${name}`, import.meta.url));
const valuesOf = (got: InputRow[]) => got.map((r) => r.values ?? r.error);

describe('files as spreadsheets write them (test/fixtures/inputs)', () => {
  it('CR-only line ends: the last value gains nothing, a quoted last value reads, however the text is cut', async () => {
    const expected = [
      { email: 'a@example.com', name: 'Ann', city: 'Bergen' },
      { email: 'b@example.com', name: 'Bob', city: 'Oslo' },
    ];
    expect(valuesOf(await rows(fixture('excel-mac-cr.csv')))).toEqual(expected);
    const quoted = [expected[0], { ...expected[1], city: 'Oslo, Norway' }];
    expect(valuesOf(await rows(fixture('excel-mac-cr-quoted.csv')))).toEqual(quoted);
    for (const size of [1, 2, 5]) {
      const text = readFileSync(fixture('excel-mac-cr-quoted.csv'), 'utf8');
      expect(valuesOf(await rows('-', { stdin: trickle(text, size), format: 'csv' }))).toEqual(quoted);
    }
    expect((await rows(fixture('excel-mac-cr.csv'))).map((r) => r.line)).toEqual([2, 3]);
  });

  it('UTF-16LE with a BOM (Excel "Unicode Text") is read as such; UTF-16BE too', async () => {
    const got = await rows(fixture('excel-unicode-text.txt'), { delimiter: '\t' });
    expect(got).toEqual([
      { line: 2, values: { email: 'a@example.com', name: 'Zoë', city: 'München' }, textual: true },
      { line: 3, values: { email: 'b@example.com', name: '李', city: 'Tōkyō' }, textual: true },
    ]);
    const le = readFileSync(fixture('excel-unicode-text.txt'));
    const be = Buffer.from(le);
    be.swap16();
    expect(valuesOf(await rows(file('be.tsv', be)))).toEqual(valuesOf(got));
    // Cut at odd bytes: a character split between chunks is joined again.
    expect(
      valuesOf(
        await rows('-', {
          stdin: Readable.from([le.subarray(0, 7), le.subarray(7, 50), le.subarray(50)]),
          delimiter: '\t',
        }),
      ),
    ).toEqual(valuesOf(got));
    // Without the tab delimiter the header is one column: the error says what to try.
    const err = await failure(rows(fixture('excel-unicode-text.txt')));
    expect(err.message).toMatch(/line 1: the header is one column, "email\\tname\\tcity"/);
    expect(err.hint).toMatch(/try --delimiter tab/);
  });

  it('windows-1252 is refused without --encoding, naming the line and the encoding, and read right with it', async () => {
    const err = await failure(rows(fixture('excel-windows-1252.csv')));
    expect(err.message).toMatch(/excel-windows-1252\.csv: not UTF-8 at line 2 \(byte 0xeb\)/);
    expect(err.hint).toMatch(/windows-1252.*try --encoding windows-1252/);
    expect(valuesOf(await rows(fixture('excel-windows-1252.csv'), { encoding: 'windows-1252' }))).toEqual([
      { email: 'a@example.com', name: 'Zoë', city: 'München' },
      { email: 'b@example.com', name: 'Renée', city: 'Café €' },
    ]);
    expect(valuesOf(await rows(fixture('excel-windows-1252.csv'), { encoding: 'latin1' }))[0]).toMatchObject({
      city: 'München',
    });
  });

  it('invalid UTF-8 is never read as U+FFFD, in CSV, NDJSON and JSON alike; rows before it are delivered', async () => {
    const munchen = Buffer.from('M\xfcnchen', 'latin1');
    const csv = file(
      'bad.csv',
      Buffer.concat([Buffer.from('email,city\na@example.com,Oslo\nb@example.com,'), munchen, Buffer.from('\n')]),
    );
    const ndjson = file(
      'bad.ndjson',
      Buffer.concat([Buffer.from('{"email":"a@example.com"}\n\n{"city":"'), munchen, Buffer.from('"}\n')]),
    );
    const json = file(
      'bad.json',
      Buffer.concat([Buffer.from('[\n{"email":"a@example.com"},\n{"city":"'), munchen, Buffer.from('"}]')]),
    );
    for (const path of [csv, ndjson, json]) {
      expect((await failure(rows(path))).message).toMatch(/: not UTF-8 at line 3 \(byte 0xfc\)/);
    }
    // A character cut between chunks is not mistaken for an invalid one; a cut-off one at the end is.
    const zoe = Buffer.from('email,name\na@example.com,Zoë 😀\n');
    const cut = [
      zoe.subarray(0, zoe.length - 4),
      zoe.subarray(zoe.length - 4, zoe.length - 2),
      zoe.subarray(zoe.length - 2),
    ];
    expect(valuesOf(await rows('-', { stdin: Readable.from(cut) }))).toEqual([
      { email: 'a@example.com', name: 'Zoë 😀' },
    ]);
    expect((await failure(rows('-', { stdin: Readable.from([zoe.subarray(0, zoe.length - 3)]) }))).message).toMatch(
      /not UTF-8 at line 2/,
    );
    expect((await failure(rows(file('enc.csv', 'email\n'), { encoding: 'ebcdic' }))).message).toMatch(
      /unknown encoding "ebcdic"/,
    );
  });

  it('rows of only empty cells are skipped, and so are unnamed trailing columns while empty', async () => {
    expect(await rows(fixture('empty-cells.csv'))).toEqual([
      { line: 2, values: { email: 'a@example.com', name: 'Ann' }, textual: true },
      { line: 5, values: { email: 'b@example.com', name: 'Bob' }, textual: true },
    ]);
    const filled = await rows(file('filled.csv', 'email,name,,\na@example.com,Ann,,x\nb@example.com,Bob\n'));
    expect(filled).toEqual([
      { line: 2, error: 'column 4 holds "x" but the header does not name it', textual: true },
      { line: 3, values: { email: 'b@example.com', name: 'Bob' }, textual: true },
    ]);
  });

  it('a semicolon (or tab) file read with "," gets the hint to try --delimiter', async () => {
    const err = await failure(rows(fixture('excel-semicolon.csv')));
    expect(err.message).toMatch(/line 1: the header is one column, "email;name;city"/);
    expect(err.hint).toBe('the header has one column holding ";": try --delimiter \';\'');
    expect(valuesOf(await rows(fixture('excel-semicolon.csv'), { delimiter: ';' }))).toEqual([
      { email: 'a@example.com', name: 'Ann', city: 'Bergen' },
    ]);
    expect((await failure(rows(file('commas.tsv', 'email,name\na@example.com,Ann\n')))).hint).toBe(
      'the header has one column holding ",": try --delimiter \',\'',
    );
    expect((await failure(rows(file('pipes.csv', 'email|name\na@example.com|Ann\n')))).hint).toMatch(
      /try --delimiter '\|'/,
    );
  });
});

describe('hostile input', () => {
  it('a binary file is refused without echoing its bytes', async () => {
    const binary = file(
      'image.csv',
      Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0x1b, 0x5d, 0x30, 0x3b, 0x00, 0x07, 0x0a]),
    );
    const err = await failure(rows(binary));
    expect(err.message).toMatch(/image\.csv: a NUL character at line 2: this is not a text file/);
    expect(err.message + err.hint).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const png = file('image.png.csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]));
    expect((await failure(rows(png))).message).toMatch(/not UTF-8 at line 1 \(byte 0x89\)/);
  });

  it('input quoted in errors is escaped and cut short', async () => {
    const long = 'x'.repeat(5000);
    const got = await rows(file('esc.csv', `email,note\na@example.com,ab"\u001b]0;pwned\u0007${long}\n`));
    expect(got[0].error).toMatch(/^malformed CSV: Invalid Opening Quote/);
    expect(got[0].error!.length).toBeLessThan(200);
    expect(got[0].error).not.toMatch(/[\u0000-\u001f]/);
    const json = await rows(file('esc.ndjson', `{"a": \u001b[31m${long}}\n`));
    expect(json[0].error).toMatch(/^not valid JSON: /);
    expect(json[0].error!.length).toBeLessThan(260);
    expect(json[0].error).not.toMatch(/[\u0000-\u001f]/);
    const header = await failure(rows(file('esc-header.csv', `a\u001b[2J;b\n1;2\n`)));
    expect(header.message).toContain('"a\\u001b[2J;b"');
  });

  it('a row nested 20,000 levels deep is an invalid row (line named); the others read', async () => {
    const deep = `{"email":"d@example.com","data":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const expected = (line: number) => ({ line, error: 'nested deeper than 100 levels' });
    const nd = await rows(file('deep.ndjson', `{"email":"a@example.com"}\n${deep}\n{"email":"b@example.com"}\n`));
    expect(nd).toEqual([
      { line: 1, values: { email: 'a@example.com' } },
      expected(2),
      { line: 3, values: { email: 'b@example.com' } },
    ]);
    const arr = await rows(file('deep.json', `[{"email":"a@example.com"},\n${deep},\n{"email":"b@example.com"}]`));
    expect(arr.map((r) => r.error ?? r.values?.email)).toEqual(['a@example.com', expected(2).error, 'b@example.com']);
    const csv = await rows(file('deep.csv', `email,data\na@example.com,${'['.repeat(20_000)}\nb@example.com,[[1]]\n`));
    expect(csv[0]).toEqual({ line: 2, error: 'column "data" holds JSON nested deeper than 100 levels', textual: true });
    expect(csv[1].values).toEqual({ email: 'b@example.com', data: '[[1]]' });
    // Text that is not JSON may hold brackets; 100 levels are fine.
    expect(
      (await rows(file('brackets.csv', `email,note\na@example.com,x${'['.repeat(300)}\n`)))[0].values,
    ).toMatchObject({ note: `x${'['.repeat(300)}` });
    expect((await rows(file('ok.ndjson', `{"d":${'['.repeat(99)}${']'.repeat(99)}}\n`)))[0].values).toBeDefined();
  });
});

describe('a file that is not UTF-8 is refused before any row', () => {
  it('a bad byte far into a file (past the first chunks) stops it before the first row is read', async () => {
    const good = 'email,city\n' + Array.from({ length: 20_000 }, (_, i) => `u${i}@example.com,Oslo`).join('\n') + '\n';
    const path = file(
      'late-bad.csv',
      Buffer.concat([Buffer.from(good), Buffer.from('z@example.com,M\xfcnchen\n', 'latin1')]),
    );
    const seen: number[] = [];
    const err = await failure(
      (async () => {
        const input = await openInput(Readable.from([]), { path });
        for await (const row of input.rows) seen.push(row.line);
      })(),
    );
    expect(err.message).toMatch(/not UTF-8 at line 20002/);
    expect(seen).toEqual([]);
    // stdin cannot be read twice: there the rows before the bad byte are delivered first.
    const stdinSeen: number[] = [];
    await expect(
      (async () => {
        const bytes = readFileSync(path);
        const input = await openInput(Readable.from([bytes.subarray(0, 65_536), bytes.subarray(65_536)]), {
          path: '-',
        });
        for await (const row of input.rows) stdinSeen.push(row.line);
      })(),
    ).rejects.toThrow(/not UTF-8 at line 20002/);
    expect(stdinSeen.length).toBeGreaterThan(0);
  });
});
