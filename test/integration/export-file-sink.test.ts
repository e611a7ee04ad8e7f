import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdOf, nextTail, TAIL_BYTES, tailHash } from '../../src/exporter/file-check.js';
import { FileSink } from '../../src/exporter/file-sink.js';
import { excelSafeCell } from '../../src/exporter/page-format.js';

const file = (content?: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'cnv-sink-')), 'out.ndjson');
  if (content !== undefined) writeFileSync(path, content);
  return path;
};
/** What a state records of `path` committed at `committed` bytes: its device and inode, and the hash of its tail. */
const identity = (path: string, committed: number) => ({
  file: fileIdOf(statSync(path, { bigint: true })),
  tail: tailHash(readFileSync(path).subarray(Math.max(0, committed - TAIL_BYTES), committed)),
});

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
    const next = await FileSink.open(path, { mode: 'resume', committed: 8, identity: identity(path, 8) });
    await next.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
  });

  it('on resume, cuts the uncommitted tail before anything is written', async () => {
    const path = file('one\ntwo\nhalf-a-pa');
    const sink = await FileSink.open(path, { mode: 'resume', committed: 8, identity: identity(path, 8) });
    expect(sink.cut).toBe(9);
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
    sink.committed(await sink.write([Buffer.from('th'), Buffer.alloc(0), Buffer.from('ree\n')], 1));
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('refuses a file shorter than committed (rotated or edited), naming --full', async () => {
    const short = file('one\n');
    await expect(
      FileSink.open(short, { mode: 'resume', committed: 8, identity: identity(short, 8) }),
    ).rejects.toMatchObject({
      exitCode: 2,
      code: 'file_shorter_than_committed',
      hint: expect.stringMatching(/--full/),
    });
    await expect(
      FileSink.open(join(tmpdir(), 'cnv-missing-dir-x', 'gone.csv'), {
        mode: 'resume',
        committed: 8,
        identity: { file: '1:2', tail: '' },
      }),
    ).rejects.toThrow(/is missing/);
  });

  it('a new export refuses a non-empty file it did not write; --full (replace) empties it', async () => {
    await expect(FileSink.open(file('someone else\n'), { mode: 'new' })).rejects.toMatchObject({
      code: 'file_not_empty',
    });
    const path = file('old content\n');
    const sink = await FileSink.open(path, { mode: 'replace' });
    expect(readFileSync(path, 'utf8')).toBe('old content\n'); // emptied only once the state names it
    await sink.empty();
    expect(sink.offset).toBe(0);
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('proves the file on resume: another inode, or other bytes before the committed length, are refused and nothing is cut', async () => {
    const path = file();
    const sink = await FileSink.open(path, { mode: 'new' });
    sink.committed(await sink.write([Buffer.from('one\n'), Buffer.from('two\n')], 1));
    const record = sink.record();
    await sink.close();
    expect(record).toMatchObject({
      kind: 'file',
      bytes: 8,
      file: expect.stringMatching(/^\d+:\d+$/),
      tail: tailHash(Buffer.from('one\ntwo\n')),
    });
    writeFileSync(path, 'one\ntwo\nuncommitted');
    const resumed = await FileSink.open(path, { mode: 'resume', committed: 8, identity: record });
    expect(resumed.cut).toBe(11);
    await resumed.close();
    writeFileSync(path, 'ONE\ntwo\nmore'); // same inode, rewritten
    await expect(FileSink.open(path, { mode: 'resume', committed: 8, identity: record })).rejects.toMatchObject({
      exitCode: 2,
      code: 'file_changed',
    });
    expect(readFileSync(path, 'utf8')).toBe('ONE\ntwo\nmore');
    await expect(
      FileSink.open(path, { mode: 'resume', committed: 8, identity: { ...record, file: '1:2' } }),
    ).rejects.toMatchObject({ exitCode: 2, code: 'file_replaced' });
  });

  it('keeps the last 64 KiB as the tail across pages, without copying whole pages', () => {
    const big = Buffer.alloc(TAIL_BYTES + 10, 'a');
    expect(nextTail(Buffer.from('xyz'), [Buffer.from('12'), Buffer.from('34')])).toEqual(Buffer.from('xyz1234'));
    const tail = nextTail(Buffer.from('old'), [big, Buffer.from('end')]);
    expect(tail.length).toBe(TAIL_BYTES);
    expect(tail.subarray(-3).toString()).toBe('end');
  });
});

describe('excelSafeCell (--excel-safe)', () => {
  it('prefixes a quote to what a spreadsheet would run, nothing else', () => {
    expect(['=1', '+1', '-1', '@x', '\tx', '\rx', 'a=b', '', '1-2', "'quoted"].map(excelSafeCell)).toEqual([
      "'=1",
      "'+1",
      "'-1",
      "'@x",
      "'\tx",
      "'\rx",
      'a=b',
      '',
      '1-2',
      "'quoted",
    ]);
  });
});
