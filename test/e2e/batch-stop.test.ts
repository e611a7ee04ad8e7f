import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  FIXTURE_AUDIENCES as AU,
  FIXTURE_CAMPAIGNS as CA,
  FIXTURE_CUSTOM_OBJECT as CO,
} from '../../src/emulator/seed/fixtures.js';
import { batchFiles, reportCsv } from '../helpers/batch-files.js';
import { BIN, cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Every batch and file mode stops on SIGINT/SIGTERM once the requests in flight settle, with a
// report that accounts for every input row; an unwritable report stops the run with exit 8.

const { dir, write, reportPath, readReport } = batchFiles('cnv-stop-');
const ROWS = 20_000;

const fx = useEmulator({}, { faults: true, stats: true });

const emails = (name: string, header = 'email') =>
  write(name, `${header}\n${Array.from({ length: ROWS }, (_, i) => `stop-${i}@example.com`).join('\n')}\n`);

interface Mode {
  name: string;
  route: string;
  args: (file: string) => string[];
  file: () => string;
}

const MODES: Mode[] = [
  {
    name: 'audience add --batch',
    route: 'POST /v2/audiences/:audienceId/contacts/batch',
    args: (f) => ['audience', 'add', AU.followUp.id, '--batch', f, '--chunk-size', '10'],
    file: () => emails('audience.csv'),
  },
  {
    name: 'campaigns add --batch',
    route: 'POST /v2/campaigns/:campaignId/contacts/batch',
    args: (f) => ['campaigns', 'add', CA.tradeShow.id, '--batch', f, '--chunk-size', '10'],
    file: () => emails('campaign.csv'),
  },
  {
    name: 'contacts upsert --file',
    route: 'POST /v2/contacts',
    args: (f) => ['contacts', 'upsert', '--file', f],
    file: () => emails('contacts.csv'),
  },
  {
    name: 'events track --file',
    route: 'POST /v2/events',
    args: (f) => ['events', 'track', '--file', f, '--event', 'stop_test'],
    file: () => emails('events.csv'),
  },
  {
    name: 'records upsert --file',
    route: 'POST /v2/custom-objects/:customObjectId/records/batch',
    args: (f) => ['records', 'upsert', CO.id, '--file', f, '--no-coerce', '--chunk-size', '10'],
    file: () =>
      write(
        'records.csv',
        `clientDedupKey,planName\n${Array.from({ length: ROWS }, (_, i) => `stop-${i},basic`).join('\n')}\n`,
      ),
  },
];

// A capped heap: memory must stay bounded while stopping (before the fix it grew until the heap ran out).
function start(args: string[], timeout = 30_000): ResultPromise<{ reject: false; timeout: number }> {
  return execa('node', ['--max-old-space-size=64', BIN, ...args], {
    env: fx.env,
    reject: false,
    timeout,
    stdin: 'ignore',
  } as const) as never;
}

async function untilRequests(route: string, n = 1): Promise<void> {
  while (((await fx.stats()).byRoute?.[route] ?? 0) < n) await new Promise((r) => setTimeout(r, 25));
}

describe('a signal ends every batch and file mode (binary, slow emulator, 20,000 rows)', () => {
  for (const [i, mode] of MODES.entries()) {
    const signal = i % 2 === 0 ? 'SIGINT' : 'SIGTERM';
    it(`${mode.name}: ${signal} exits ${signal === 'SIGINT' ? 130 : 143} with a result for every row`, async () => {
      // The runaway of issue 11: default concurrency, 150 ms answers, stopped mid-run.
      await fx.faults({ latencyMs: 150 });
      const report = reportPath();
      const child = start([...mode.args(mode.file()), '--report', report]);
      await untilRequests(mode.route, 20);
      child.kill(signal);
      const res = await child;
      // Before the fix the batch adds never exited (one core busy, memory growing): the
      // execa timeout above ends such a run, and timedOut says so.
      expect(res.timedOut).toBe(false);
      expect(res.exitCode).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(String(res.stderr)).toMatch(/interrupted/);
      const rows = readReport(report);
      expect(rows).toHaveLength(ROWS);
      const sent = rows.filter((r) => r.status !== 'skipped');
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.length).toBeLessThan(ROWS);
      expect(
        rows.filter((r) => r.status === 'skipped').every((r) => r.error === 'not_sent' || r.error === 'interrupted'),
      ).toBe(true);
    });
  }

  it('a second Ctrl-C exits at once, and the report path is still a resumable report', async () => {
    await fx.faults({ latencyMs: 20_000 });
    const report = reportPath();
    const file = MODES[0].file();
    const args = ['audience', 'add', AU.followUp.id, '--batch', file, '--report', report];
    // Under the 10 s grace a first Ctrl-C gives the requests in flight: only the second ends it in time.
    const child = start(args, 8_000);
    // The answers take 20 s: wait until the run has created its report and sent its first requests.
    while (!existsSync(report)) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    const res = await child;
    expect(res.timedOut).toBe(false);
    expect(res.exitCode).toBe(130);
    expect(reportCsv(readFileSync(report, 'utf8')).split('\n')[0]).toBe(
      'line,identifier,status,cnvContactId,error,message,row,hash,job',
    );
    await fx.clearFaults();
    const resumed = await cnv([...args, '--resume-from-report', report], { env: fx.env });
    expect(resumed.exitCode).toBe(6); // the emails name no contact: every row "failed", none lost
    expect(readReport(report)).toHaveLength(ROWS);
  });
});

describe('an unwritable report stops the run (binary)', () => {
  it('disk full under the report (/dev/full): exit 8 naming the report, promptly', async () => {
    const res = await cnv([...MODES[0].args(MODES[0].file()), '--report', '/dev/full', '--json'], {
      env: fx.env,
      timeoutMs: 30_000,
    });
    expect(res.exitCode).toBe(8);
    expect(res.stderr).toMatch(/error: disk_full: cannot write the report \/dev\/full: the disk is full \(ENOSPC\)/);
    expect(res.stderr).toMatch(/^stopped early: \d+ rows: /m);
    // --json: the summary document on stdout says how it ended, also when it failed.
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'failed', exitCode: 8 });
    // It stopped at the first failed write: most of the 20,000 rows were never sent (2,000 requests otherwise).
    expect((await fx.stats()).byRoute[MODES[0].route]).toBeLessThan(500);
  });

  it('contacts upsert --file with the report on a full disk: exit 8', async () => {
    const res = await cnv([...MODES[2].args(MODES[2].file()), '--report', '/dev/full'], {
      env: fx.env,
      timeoutMs: 30_000,
    });
    expect(res.exitCode).toBe(8);
    expect(res.stderr).toMatch(/cannot write the report \/dev\/full/);
  });

  it('a report on stdout whose reader goes away (| head -1): exit 141, not a report error', async () => {
    const cmd = `node ${BIN} ${MODES[0].args(MODES[0].file()).join(' ')} --report - | head -1; exit \${PIPESTATUS[0]}`;
    const res = await execa('bash', ['-c', cmd], { env: fx.env, reject: false, timeout: 30_000 });
    expect(reportCsv(res.stdout)).toBe('line,identifier,status,cnvContactId,error,message,row,hash,job');
    expect(res.exitCode).toBe(141);
    // The reader has what it wanted: no error line (the summary says the run stopped early).
    expect(res.stderr).not.toMatch(/^error:|report_unwritable|cannot write the report/m);
  });

  it('a report in a directory that does not exist: exit 2 report_unwritable, nothing sent', async () => {
    const res = await cnv([...MODES[0].args(MODES[0].file()), '--report', join(dir, 'no-such-dir', 'r.csv')], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/report_unwritable/);
    expect((await fx.stats()).total).toBe(0);
  });
});
