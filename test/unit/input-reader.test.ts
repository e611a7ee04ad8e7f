import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatFromPath, InputFileError, openInput, type InputRow } from '../../src/io/input-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cnv-input-'));
let n = 0;
function file(name: string, content: string | Buffer): string {
  const path = join(dir, `${n++}-${name}`);
  writeFileSync(path, content);
  return path;
}

async function rows(path: string, opts: { format?: 'csv' | 'ndjson' | 'json'; delimiter?: string; stdin?: Readable } = {}): Promise<InputRow[]> {
  const input = await openInput(opts.stdin ?? Readable.from([]), { path, format: opts.format, delimiter: opts.delimiter });
  const out: InputRow[] = [];
  for await (const row of input.rows) out.push(row);
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
    const path = file('a.csv', '\uFEFFemail,note\nada@example.com,"Hello, world"\n\ngrace@example.com,"two\nlines"\nlinus@example.com,"say ""hi"""\n');
    expect(await rows(path)).toEqual([
      { line: 2, values: { email: 'ada@example.com', note: 'Hello, world' }, textual: true },
      { line: 4, values: { email: 'grace@example.com', note: 'two\nlines' }, textual: true },
      { line: 6, values: { email: 'linus@example.com', note: 'say "hi"' }, textual: true },
    ]);
  });

  it('CRLF line ends, also inside quoted values, and a last row without a line end', async () => {
    const path = file('crlf.csv', 'email,note\r\na@example.com,"x\r\ny"\r\nb@example.com,z');
    const got = await rows(path);
    expect(got.map((r) => [r.line, r.values?.email, r.values?.note])).toEqual([
      [2, 'a@example.com', 'x\ny'],
      [4, 'b@example.com', 'z'],
    ]);
  });

  it('another delimiter, by flag or by the .tsv extension', async () => {
    expect((await rows(file('semi.csv', 'email;n\na@example.com;1,5\n'), { delimiter: ';' }))[0].values).toEqual({ email: 'a@example.com', n: '1,5' });
    expect((await rows(file('t.tsv', 'email\tn\na@example.com\t2\n')))[0].values).toEqual({ email: 'a@example.com', n: '2' });
  });

  it('a row with the wrong number of fields, or a stray quote, is an invalid row; the rest still reads', async () => {
    const path = file('bad-rows.csv', 'email,note\na@example.com,x,extra\nb@example.com,bad"quote\nc@example.com,ok\n');
    const got = await rows(path);
    expect(got[0]).toEqual({ line: 2, error: 'has 3 field(s), the header has 2', textual: true });
    expect(got[1]).toMatchObject({ line: 3, error: expect.stringMatching(/^malformed CSV: .*quote/i) });
    expect(got[2]).toEqual({ line: 4, values: { email: 'c@example.com', note: 'ok' }, textual: true });
  });

  it('a quote that is never closed, or a bad closing quote, makes the file unreadable, naming the line', async () => {
    const unclosed = file('unclosed.csv', 'email,note\na@example.com,ok\nb@example.com,"never closed\nc@example.com,x\n');
    const e1 = await failure(rows(unclosed));
    expect(e1.message).toMatch(new RegExp(`${unclosed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line \\d+: .*[Qq]uote`));
    const closing = file('closing.csv', 'email,note\na@example.com,"bad"x\n');
    expect((await failure(rows(closing))).message).toMatch(/line 2: Invalid Closing Quote/);
  });

  it('rows before a fatal error are still delivered', async () => {
    const path = file('late.csv', 'email\na@example.com\nb@example.com\n"c@example.com\n');
    const input = await openInput(Readable.from([]), { path });
    const seen: number[] = [];
    await expect((async () => {
      for await (const row of input.rows) seen.push(row.line);
    })()).rejects.toThrow(/line 4/);
    expect(seen).toEqual([2, 3]);
  });

  it('a bad header is an error: empty file, unnamed or repeated column', async () => {
    expect((await failure(rows(file('empty.csv', '')))).message).toMatch(/empty: expected a header row/);
    expect((await failure(rows(file('unnamed.csv', 'email,,x\n')))).message).toMatch(/line 1: column 2 of the header has no name/);
    expect((await failure(rows(file('twice.csv', 'email,email\n')))).message).toMatch(/"email" appears twice/);
  });

  it('a missing file or a directory is an error before any row', async () => {
    expect((await failure(openInput(Readable.from([]), { path: join(dir, 'nope.csv') }))).message).toMatch(/nope\.csv: no such file/);
    expect((await failure(openInput(Readable.from([]), { path: dir }))).message).toMatch(/is a directory/);
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
});

describe('JSON array input', () => {
  it('streams the elements with the line each starts on, across chunk boundaries', async () => {
    const text = '\uFEFF[\n  {"email": "a@example.com", "tags": ["x", "]"], "s": "say \\"}\\""},\n  {\n    "email": "b@example.com"\n  },\n  {"email":"c@example.com"}\n]\n';
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
    expect((await failure(rows(file('obj.json', '{"a":1}'), { format: 'json' }))).message).toMatch(/line 1: expected a JSON array/);
    expect((await failure(rows(file('open.json', '[{"a":1},\n{"b":2}\n')))).message).toMatch(/not closed/);
    expect((await failure(rows(file('trailing.json', '[{"a":1},\n]')))).message).toMatch(/line 2: expected a value after ","/);
    expect((await failure(rows(file('after.json', '[{"a":1}]\n{"b":2}')))).message).toMatch(/line 2: unexpected "\{" after the end/);
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
    expect(last).toEqual({ line: 50_001, values: { email: 'u49999@example.com' } });
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
    expect(got).toEqual([{ line: 2, values: { email: 'a@example.com' }, textual: true }]);
  });

  it('--input-format wins over the extension', async () => {
    expect(await rows(file('data.txt', '{"a":1}\n'), { format: 'ndjson' })).toEqual([{ line: 1, values: { a: 1 } }]);
  });
});
