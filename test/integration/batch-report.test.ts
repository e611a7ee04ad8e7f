import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { openReport } from '../../src/batch/row-report.js';
import { loadDoneRows } from '../../src/batch/resume.js';
import { lockReport } from '../../src/batch/row-report-lock.js';
import type { RowResult } from '../../src/batch/types.js';
import { processStartTicks } from '../../src/lib/process-alive.js';

const JOB = { command: 'audience add', target: 'c1000000-0000-4000-8000-000000000002', input: 'people.csv' };
/** The `job` cell every row of a report of JOB ends with. */
const J =
  '"{""command"":""audience add"",""target"":""c1000000-0000-4000-8000-000000000002"",""input"":""people.csv"",""account"":null}"';
const HEADER = 'line,identifier,status,cnvContactId,error,message,row,hash,job\n';
/** Report lines of JOB, each given without its job cell. */
const rows = (...lines: string[]) => lines.map((l) => `${l},${J}\n`).join('');
/** How reports of an earlier cnv began: the job on a line of its own, a header without `job`. */
const EARLIER =
  '#cnv-report {"version":3,"command":"audience add","target":"c1000000-0000-4000-8000-000000000002","input":"people.csv","account":null}\nline,identifier,status,cnvContactId,error,message,row,hash\n';
const tempDir = () => mkdtempSync(join(tmpdir(), 'cnv-report-'));
const DONE = 'done in an earlier run (--resume-from-report)';

async function recordedAll(report: Awaited<ReturnType<typeof openReport>>, n: number): Promise<void> {
  while (report.record!.recorded() < n) await report.record!.waitBeyond(report.record!.recorded());
}

describe('the report file', () => {
  it('is a valid, resumable report before close, and in input order with one row per line after', async () => {
    const path = join(tempDir(), 'r.csv');
    // Rows 1, 2 and 4 of a JSON array on one line: done, failed, done.
    writeFileSync(
      path,
      HEADER +
        rows(
          '1,a@x.io,added,id-a,,,1,aaaa',
          '1,b@x.io,failed,,contact_not_found,no,2,bbbb',
          '1,d@x.io,added,id-d,,,4,dddd',
        ),
    );
    const done = await loadDoneRows(path, 'cnvContactId', JOB);
    expect([...done.keys()]).toEqual([1, 4]);
    const report = await openReport(path, 'cnvContactId', new PassThrough(), { job: JOB, done });
    // Carried over at once: a crash now loses nothing the earlier report had.
    expect(readFileSync(path, 'utf8')).toBe(
      HEADER + rows(`1,a@x.io,added,id-a,,${DONE},1,aaaa`, `1,d@x.io,added,id-d,,${DONE},4,dddd`),
    );
    const results: RowResult[] = [
      { line: 1, row: 1, hash: 'aaaa', identifier: 'a@x.io', ...done.get(1)!.outcome },
      { line: 1, row: 2, hash: 'bbbb', identifier: 'b@x.io', status: 'added', id: 'id-b' },
      {
        line: 1,
        row: 3,
        hash: 'cccc',
        identifier: 'c@x.io',
        status: 'failed',
        error: 'bad',
        message: 'two\nlines, "quoted"',
      },
      { line: 1, row: 4, hash: 'dddd', identifier: 'd@x.io', ...done.get(4)!.outcome },
      {
        line: 1,
        row: 5,
        hash: 'eeee',
        identifier: 'e@x.io',
        status: 'skipped',
        error: 'not_sent',
        message: 'not sent',
      },
    ];
    for (const r of results) await report.write(r);
    await recordedAll(report, results.length);
    // What a kill now would leave: carried rows, then this run's rows; resumable as it is.
    const resumable = await loadDoneRows(path, 'cnvContactId', JOB);
    expect([...resumable.keys()].sort()).toEqual([1, 2, 4]);
    await report.close();
    // Merged back by place among the rows (every line is 1 here).
    expect(readFileSync(path, 'utf8')).toBe(
      HEADER +
        rows(
          `1,a@x.io,added,id-a,,${DONE},1,aaaa`,
          '1,b@x.io,added,id-b,,,2,bbbb',
          '1,c@x.io,failed,,bad,"two\nlines, ""quoted""",3,cccc',
          `1,d@x.io,added,id-d,,${DONE},4,dddd`,
          '1,e@x.io,skipped,,not_sent,not sent,5,eeee',
        ),
    );
    expect(readdirSync(join(path, '..')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('round trip: what cnv writes (quotes, commas, every line break, astral and combining characters, NUL) reads back the same, compacted byte for byte', async () => {
    const path = join(tempDir(), 'round.csv');
    const odd = [
      'say "hi", then go',
      'crlf\r\nbare cr\rlf\n',
      ' spaced ',
      '\u{1F600} Cafe\u0301 \u00e9',
      'nul\u0000here',
      '=1+2',
      '',
    ];
    const earlier = odd.map((message, i): RowResult => ({
      line: i + 2,
      row: i + 1,
      hash: `h${i}`,
      identifier: `${message}@x`,
      status: 'added',
      id: `id,${i}`,
      message,
    }));
    const first = await openReport(path, 'cnvContactId', new PassThrough(), { job: JOB });
    for (const r of earlier) await first.write(r);
    await first.close();
    const written = readFileSync(path, 'utf8');
    // The csv-parse oracle reads the same cells.
    const oracle = parse(written, { columns: true }) as Array<Record<string, string>>;
    expect(oracle.map((r) => [r.identifier, r.message, r.cnvContactId])).toEqual(
      earlier.map((r) => [r.identifier, r.message, r.id]),
    );
    // Every row read back by cnv's own reader.
    const done = await loadDoneRows(path, 'cnvContactId', JOB);
    expect([...done.values()].map((d) => [d.identifier, d.hash, d.outcome.id])).toEqual(
      earlier.map((r) => [r.identifier, r.hash, r.id]),
    );
    // Resumed: the carried rows first, then this run's rows, merged by place at the end: this run's rows come back as written.
    const carried = new Map([...done].slice(0, 2));
    const again = await openReport(path, 'cnvContactId', new PassThrough(), { job: JOB, done: carried });
    for (const r of earlier) await again.write(carried.has(r.row!) ? { ...r, ...carried.get(r.row!)!.outcome } : r);
    await again.close();
    const merged = readFileSync(path, 'utf8').split(J);
    expect(merged.slice(2)).toEqual(written.split(J).slice(2));
    expect(merged[1]).toContain(DONE);
  });

  it('a row listed twice (a killed run appended it again): a later success wins, a later failure does not undo one', async () => {
    const path = join(tempDir(), 'log.csv');
    writeFileSync(
      path,
      `${HEADER}${rows('2,a,added,1,,,1,h1', '3,b,failed,,x,,2,h2', '2,a,skipped,,not_sent,,1,h1', '3,b,added,2,,,2,h2')}4,c,add`,
    );
    // A record cut inside a quoted value (its quote never closed) counts for nothing either.
    const cutQuoted = join(tempDir(), 'cut.csv');
    writeFileSync(cutQuoted, `${readFileSync(path, 'utf8').slice(0, -'4,c,add'.length)}4,c,added,3,,"two\nlin`);
    expect([...(await loadDoneRows(cutQuoted, 'cnvContactId', JOB)).keys()]).toEqual([1, 2]);
    const done = await loadDoneRows(path, 'cnvContactId', JOB);
    expect([...done.entries()].map(([row, d]) => [row, d.line, d.identifier, d.hash, d.outcome.id])).toEqual([
      [1, 2, 'a', 'h1', '1'],
      [2, 3, 'b', 'h2', '2'],
    ]);
  });

  it('a report of another command, target or input file is refused (exit 2), naming both', async () => {
    const path = join(tempDir(), 'r.csv');
    writeFileSync(path, HEADER + rows('2,a,added,1,,,1,h1'));
    for (const other of [
      { ...JOB, command: 'contacts upsert', target: undefined },
      { ...JOB, target: 'c1000000-0000-4000-8000-000000000003' },
      { ...JOB, input: 'others.csv' },
    ]) {
      const err = await loadDoneRows(path, 'cnvContactId', other).catch((e) => e);
      expect(err).toMatchObject({ exitCode: 2, code: 'report_mismatch' });
      expect(err.message).toContain(
        'it reports `audience add c1000000-0000-4000-8000-000000000002` on people.csv, not `',
      );
    }
    // The same file name in another directory is the same input.
    expect((await loadDoneRows(path, 'cnvContactId', { ...JOB, input: '/data/people.csv' })).size).toBe(1);
  });

  it("a report of an earlier cnv's format, or something that is no report, is refused (exit 2) with the way to start over", async () => {
    const dir = tempDir();
    const NOT_THIS_VERSION =
      /^--resume-from-report .*: not a report of this version of cnv: its first line is not the header \(line, identifier, status, \.\.\., row, hash, job\)$/;
    const cases: Array<[string, RegExp]> = [
      // Its job on a first line of its own (never read as such: refused as any other first line).
      [`${EARLIER}2,a,added,1,,,1,h1\n`, NOT_THIS_VERSION],
      [
        '#cnv-report {"version":2,"command":"audience add","input":"people.csv"}\nline,identifier,status,cnvContactId,error,message,row,hash\n',
        NOT_THIS_VERSION,
      ],
      // A header without `job`: the rows cannot be checked against this run.
      ['line,identifier,status,cnvContactId,error,message,row,hash\n2,a,added,1,,,1,h1\n', NOT_THIS_VERSION],
      ['email\na@x.io\n', NOT_THIS_VERSION],
      ['', /not a cnv report: no header line/],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      writeFileSync(join(dir, `${i}.csv`), text);
      const err = await loadDoneRows(join(dir, `${i}.csv`), 'cnvContactId', JOB).catch((e) => e);
      expect(err, text).toMatchObject({
        exitCode: 2,
        code: 'invalid_input',
        hint: 'give the --report file of an earlier run of the same input, or run without --resume-from-report to send the whole file again',
      });
      expect(err.message, text).toMatch(message);
    }
  });

  it('endless junk is refused after its first 64 KiB; reading stops at an abort', async () => {
    const err = await loadDoneRows('/dev/zero', 'cnvContactId', JOB).catch((e) => e);
    expect(err).toMatchObject({ exitCode: 2, message: expect.stringMatching(/not a cnv report/) });
    const aborted = new AbortController();
    const reason = new Error('interrupted');
    aborted.abort(reason);
    await expect(loadDoneRows('/dev/zero', 'cnvContactId', JOB, aborted.signal)).rejects.toBe(reason);
  });

  it('masks keys the server echoed, in every column it sent', async () => {
    const path = join(tempDir(), 'redacted.csv');
    const redact = (t: string) => t.replace(/sk_live_\w+/g, 'sk_live_x_****');
    const report = await openReport(path, 'cnvContactId', new PassThrough(), { job: JOB, redact });
    await report.write({
      line: 2,
      row: 1,
      identifier: 'a',
      status: 'failed',
      id: 'sk_live_id_1234',
      error: 'e_sk_live_k_abcd',
      message: 'key sk_live_k_abcdef',
    });
    await report.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(HEADER + rows('2,a,failed,sk_live_x_****,e_sk_live_x_****,key sk_live_x_****,1,'));
  });

  it('a report streamed to a device that fails (/dev/full): close() rejects with disk_full, never waits for a drain that cannot come', async () => {
    const report = await openReport('/dev/full', 'cnvContactId', new PassThrough(), { job: JOB });
    let failure: unknown;
    // Rows as a batch releases them, a chunk at a time, until the failed write is heard of; the
    // rows written since are still in the writer's chunk when it is closed.
    for (let row = 1; row < 100_000 && failure === undefined; row++) {
      try {
        report
          .write({
            line: row + 1,
            row,
            identifier: `u${row}@x.io`,
            status: 'failed',
            error: 'contact_not_found',
            message: 'no such contact',
          })
          ?.catch(() => {});
      } catch (err) {
        failure = err;
      }
      if (row % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(failure).toMatchObject({ code: 'disk_full', exitCode: 8 });
    await expect(report.close()).rejects.toMatchObject({ code: 'disk_full', exitCode: 8 });
  });

  it('a write that fails before its error event (the stream errored, the event a tick later): the wait for a drain rejects typed, never with the raw errno', async () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const out = new Writable({ highWaterMark: 1, write: (_chunk, _enc, done) => done(enospc) });
    const report = await openReport('-', 'cnvContactId', out, { job: JOB });
    let waited: Promise<void> | undefined;
    for (let row = 1; waited === undefined; row++) {
      waited = report.write({
        line: row + 1,
        row,
        identifier: `u${row}@x.io`.padEnd(70_000, 'x'),
        status: 'added',
        id: 'id',
      });
    }
    expect(out.errored).toBe(enospc);
    await expect(waited).rejects.toMatchObject({ code: 'disk_full', exitCode: 8 });
    expect(() => report.write({ line: 9, row: 9, identifier: 'x', status: 'added' })).toThrow(
      /cannot write the report -: the disk is full/,
    );
  });
});

describe('the report lock', () => {
  it('refuses while a live process holds it, takes it over from a process gone, and releases it', async () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const lock = join(dir, '.r.csv.cnv-lock');
    const owner = (pid: number) =>
      JSON.stringify({
        pid,
        hostname: hostname(),
        startedAt: '2026-01-01T00:00:00.000Z',
        procStart: processStartTicks(pid),
      }) + '\n';
    writeFileSync(lock, owner(process.ppid));
    await expect(lockReport(path)).rejects.toMatchObject({
      exitCode: 7,
      code: 'report_locked',
      message: `another cnv run (pid ${process.ppid}) is writing the report ${path}`,
    });
    writeFileSync(lock, owner(2147480009));
    const release = await lockReport(path);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an earlier cnv's report lock (`<pid> <hex>`) is refused (exit 2), naming it and how to go on; never judged by its pid", async () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const lock = join(dir, '.r.csv.cnv-lock');
    writeFileSync(lock, '2147480009 abcd\n');
    await expect(lockReport(path)).rejects.toMatchObject({
      exitCode: 2,
      code: 'lock_unrecognised',
      message: `${lock} is not a lock this version of cnv writes: whether a run still holds it cannot be told`,
      hint: `if no cnv run uses it, remove it (rm -r ${lock}) and run again`,
    });
    expect(readFileSync(lock, 'utf8')).toBe('2147480009 abcd\n');
  });
});
