import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadDoneRows, openReport } from '../../src/batch/report.js';
import { removeStaleTemps } from '../../src/batch/report-file.js';
import { lockReport } from '../../src/batch/report-lock.js';
import type { RowResult } from '../../src/batch/types.js';

const HEADER = 'line,identifier,status,cnvContactId,error,message\n';
const tempDir = () => mkdtempSync(join(tmpdir(), 'cnv-report-'));

async function recordedAll(report: Awaited<ReturnType<typeof openReport>>, n: number): Promise<void> {
  while (report.record!.recorded() < n) await report.record!.waitBeyond(report.record!.recorded());
}

describe('the report file', () => {
  it('is a valid, resumable report before close, and in input order with one row per line after', async () => {
    const path = join(tempDir(), 'r.csv');
    writeFileSync(path, `${HEADER}2,a@x.io,added,id-a,,\n3,b@x.io,failed,,contact_not_found,no\n5,d@x.io,added,id-d,,\n`);
    const done = await loadDoneRows(path, 'cnvContactId');
    expect([...done.keys()]).toEqual([2, 5]);
    const report = await openReport(path, 'cnvContactId', new PassThrough(), { done });
    // Carried over at once: a crash now loses nothing the earlier report had.
    expect(readFileSync(path, 'utf8')).toBe(`${HEADER}2,a@x.io,added,id-a,,done in an earlier run (--resume-from-report)\n5,d@x.io,added,id-d,,done in an earlier run (--resume-from-report)\n`);
    const results: RowResult[] = [
      { line: 2, identifier: 'a@x.io', ...done.get(2)!.outcome },
      { line: 3, identifier: 'b@x.io', status: 'added', id: 'id-b' },
      { line: 4, identifier: 'c@x.io', status: 'failed', error: 'bad', message: 'two\nlines, "quoted"' },
      { line: 5, identifier: 'd@x.io', ...done.get(5)!.outcome },
      { line: 6, identifier: 'e@x.io', status: 'skipped', error: 'not_sent', message: 'not sent' },
    ];
    for (const r of results) await report.write(r);
    await recordedAll(report, results.length);
    // What a kill now would leave: carried rows, then this run's rows; resumable as it is.
    const resumable = await loadDoneRows(path, 'cnvContactId');
    expect([...resumable.keys()].sort()).toEqual([2, 3, 5]);
    await report.close();
    expect(readFileSync(path, 'utf8')).toBe(
      HEADER +
        '2,a@x.io,added,id-a,,done in an earlier run (--resume-from-report)\n' +
        '3,b@x.io,added,id-b,,\n' +
        '4,c@x.io,failed,,bad,"two\nlines, ""quoted"""\n' +
        '5,d@x.io,added,id-d,,done in an earlier run (--resume-from-report)\n' +
        '6,e@x.io,skipped,,not_sent,not sent\n',
    );
    expect(readdirSync(join(path, '..')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a line listed twice (a killed run appended it again): a later success wins, a later failure does not undo one', async () => {
    const path = join(tempDir(), 'log.csv');
    writeFileSync(path, `${HEADER}2,a,added,1,,\n3,b,failed,,x,\n2,a,skipped,,not_sent,\n3,b,added,2,,\n4,c,add`);
    const done = await loadDoneRows(path, 'cnvContactId');
    expect([...done.entries()].map(([line, d]) => [line, d.identifier, d.outcome.id])).toEqual([[2, 'a', '1'], [3, 'b', '2']]);
  });

  it('masks keys the server echoed, in every column it sent', async () => {
    const path = join(tempDir(), 'redacted.csv');
    const redact = (t: string) => t.replace(/sk_live_\w+/g, 'sk_live_x_****');
    const report = await openReport(path, 'cnvContactId', new PassThrough(), { redact });
    await report.write({ line: 2, identifier: 'a', status: 'failed', id: 'sk_live_id_1234', error: 'e_sk_live_k_abcd', message: 'key sk_live_k_abcdef' });
    await report.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(`${HEADER}2,a,failed,sk_live_x_****,e_sk_live_x_****,key sk_live_x_****\n`);
  });

  it('stale temporary files: those of a process gone are removed, those of a running one kept', async () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const gone = join(dir, '.r.csv.cnv-2147480009-00000000.tmp');
    const running = join(dir, `.r.csv.cnv-${process.ppid}-11111111.tmp`);
    const other = join(dir, '.s.csv.cnv-2147480009-22222222.tmp');
    for (const f of [gone, running, other]) writeFileSync(f, 'x');
    await removeStaleTemps(path);
    expect(readdirSync(dir).sort()).toEqual([running, other].map((f) => f.slice(dir.length + 1)).sort());
  });
});

describe('the report lock', () => {
  it('refuses while a live process holds it, takes it over from a process gone, and releases it', async () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const lock = join(dir, '.r.csv.cnv-lock');
    writeFileSync(lock, `${process.ppid} abcd\n`);
    await expect(lockReport(path)).rejects.toMatchObject({ exitCode: 7, code: 'report_locked', message: `another cnv run (pid ${process.ppid}) is writing the report ${path}` });
    writeFileSync(lock, '2147480009 abcd\n');
    const release = await lockReport(path);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
