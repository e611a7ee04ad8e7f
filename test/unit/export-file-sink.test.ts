import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSink } from '../../src/exports/file-sink.js';

const file = (content?: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'cnv-sink-')), 'out.ndjson');
  if (content !== undefined) writeFileSync(path, content);
  return path;
};

describe('FileSink (the commit protocol on the data side)', () => {
  it('writes each page at the committed offset, so a page that was never committed is written over', async () => {
    const path = file();
    const sink = await FileSink.open(path, { mode: 'new' });
    sink.committed(await sink.write([Buffer.from('one\n')], 1));
    await sink.write([Buffer.from('two-never-committed\n')], 2); // the state write did not happen
    expect(sink.offset).toBe(4);
    sink.committed(await sink.write([Buffer.from('two\n')], 2));
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nnever-committed\n');
    const next = await FileSink.open(path, { mode: 'resume', committed: 8 });
    await next.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
  });

  it('on resume, cuts the uncommitted tail before anything is written', async () => {
    const path = file('one\ntwo\nhalf-a-pa');
    const sink = await FileSink.open(path, { mode: 'resume', committed: 8 });
    expect(sink.cut).toBe(9);
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
    sink.committed(await sink.write([Buffer.from('th'), Buffer.alloc(0), Buffer.from('ree\n')], 1));
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('refuses a file shorter than committed (rotated or edited), naming --full', async () => {
    await expect(FileSink.open(file('one\n'), { mode: 'resume', committed: 8 })).rejects.toMatchObject({
      exitCode: 2, code: 'file_shorter_than_committed', hint: expect.stringMatching(/--full/),
    });
    await expect(FileSink.open(join(tmpdir(), 'cnv-missing-dir-x', 'gone.csv'), { mode: 'resume', committed: 8 })).rejects.toThrow(/is missing/);
  });

  it('a new export refuses a non-empty file it did not write; --full (replace) empties it', async () => {
    await expect(FileSink.open(file('someone else\n'), { mode: 'new' })).rejects.toMatchObject({ code: 'file_not_empty' });
    const path = file('old content\n');
    const sink = await FileSink.open(path, { mode: 'replace' });
    expect(readFileSync(path, 'utf8')).toBe('old content\n'); // emptied only once the state names it
    await sink.empty();
    expect(sink.offset).toBe(0);
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});
