import { appendFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CUSTOM_OBJECT } from '../../src/emulator/seed/fixtures.js';
import { idColumnEventId } from '../../src/commands/events/track-file.js';
import { batchFiles } from '../helpers/batch-files.js';
import { BIN, cleanEnv, cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The ledger jobs other than audience sync, through the binary: records sync sends only the
// records that changed (none on a rerun), events track --id-column only the lines a file grew
// by; `cnv ledger list | show | reset`; one run per job.

const fx = useEmulator({ seedContacts: 100 }, { stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-ledger-');
const CO = FIXTURE_CUSTOM_OBJECT.id;
const RECORDS = 'POST /v2/custom-objects/:customObjectId/records/batch';
const EVENTS = 'POST /v2/events';

async function count(route: string): Promise<number> {
  return (await fx.stats()).byRoute?.[route] ?? 0;
}

const records = (n: number, seats = (i: number) => i % 7) =>
  `clientDedupKey,planName,seats\n${Array.from({ length: n }, (_, i) => `led-${i},Pro,${seats(i)}`).join('\n')}\n`;
const events = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => `${from + k},ledger_step,bulk.${(from + k) % 100}@example.com\n`).join(
    '',
  );

describe('ledger jobs (binary)', () => {
  it('records sync: a rerun of the same file sends 0 requests; a changed record is the one sent; --full sends all', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const file = write('records.csv', records(500));
    const first = await cnv(['records', 'sync', CO, '--file', file, '--json'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).ledger).toMatchObject({ added: 500, updated: 0 });
    expect(await count(RECORDS)).toBe(3);

    await fx.resetStats();
    const rerun = await cnv(['records', 'sync', CO, '--file', file, '--json', '--exit-code'], { env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout).ledger).toMatchObject({ unchanged: 500, added: 0, updated: 0 });
    expect(await count(RECORDS)).toBe(0);

    await fx.resetStats();
    const changed = write(
      'changed.csv',
      records(500, (i) => (i === 321 ? 99 : i % 7)),
    );
    const report = reportPath();
    const one = await cnv(['records', 'sync', CO, '--file', changed, '--report', report, '--exit-code'], { env });
    expect(one.exitCode, one.stderr).toBe(9);
    expect(await count(RECORDS)).toBe(1);
    expect(readReport(report).filter((r) => r.status !== 'unchanged')).toMatchObject([
      { identifier: 'led-321', status: 'updated' },
    ]);
    const stored = (await fx.admin('GET', `/_emulator/state/records?clientDedupKey=led-321`)) as Array<{
      fields: object;
    }>;
    expect(stored[0].fields).toMatchObject({ seats: 99 });

    await fx.resetStats();
    expect((await cnv(['records', 'sync', CO, '--file', changed, '--full'], { env })).exitCode).toBe(0);
    expect(await count(RECORDS)).toBe(3);
  });

  it('events track --id-column: a grown file sends only its new lines; with the ledger lost, every line again, answered duplicate, no event twice', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const file = write('events.csv', `order_id,event,email\n${events(0, 40)}`);
    const track = () => cnv(['events', 'track', '--file', file, '--id-column', 'order_id', '--json'], { env });
    const before = ((await fx.admin('GET', '/_emulator/state/events?event=ledger_step')) as unknown[]).length;
    await fx.resetStats();
    expect((await track()).exitCode).toBe(0);
    expect(await count(EVENTS)).toBe(40);
    appendFileSync(file, events(40, 52));
    await fx.resetStats();
    const grown = await track();
    expect(grown.exitCode, grown.stderr).toBe(0);
    expect(JSON.parse(grown.stdout).ledger).toMatchObject({ added: 12, unchanged: 40 });
    expect(await count(EVENTS)).toBe(12);
    // The id of each line is derived from the column and its value, the same in every run.
    const stored = (await fx.admin(
      'GET',
      `/_emulator/state/events?clientEventId=${idColumnEventId('order_id', '45')}`,
    )) as unknown[];
    expect(stored).toHaveLength(1);

    const list = JSON.parse((await cnv(['ledger', 'list', '--json'], { env })).stdout);
    expect(list).toMatchObject([{ command: 'events track', keyColumn: 'order_id', entries: 52, state: 'ok' }]);
    const job = list[0].job as string;
    const entries = JSON.parse((await cnv(['ledger', 'show', job, '--entries', '--json'], { env })).stdout);
    expect(entries).toHaveLength(52);
    expect(entries[0]).toMatchObject({ key: '0', state: 'ok' });
    const refused = await cnv(['ledger', 'reset', job], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes is required off a terminal');
    expect(JSON.parse((await cnv(['ledger', 'reset', job, '--yes', '--json'], { env })).stdout)).toEqual({
      job,
      removed: true,
    });
    expect((await cnv(['ledger', 'show', job], { env })).exitCode).toBe(5);

    await fx.resetStats();
    const lost = await track();
    expect(lost.exitCode, lost.stderr).toBe(0);
    expect(lost.stderr).toMatch(/note: no ledger of .*events-track\/order_id yet/);
    expect(JSON.parse(lost.stdout).byStatus).toEqual({ duplicate: 52 });
    expect(await count(EVENTS)).toBe(52);
    expect((await fx.admin('GET', '/_emulator/state/events?event=ledger_step')) as unknown[]).toHaveLength(before + 52);
    await fx.resetStats();
    expect(JSON.parse((await track()).stdout).ledger).toMatchObject({ unchanged: 52, added: 0 });
    expect(await count(EVENTS)).toBe(0);
  });

  it("one run per job: a second run exits 7 naming the first one's pid, and sends nothing", async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const file = write('slow.csv', records(2000));
    await fx.faults({ latencyMs: 300 });
    const first = execa('node', [BIN, 'records', 'sync', CO, '--file', file, '--concurrency', '1'], {
      env: cleanEnv(env),
      extendEnv: false,
      reject: false,
    });
    try {
      for (let i = 0; i < 200 && (await count(RECORDS)) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const second = await cnv(['records', 'sync', CO, '--file', file], { env });
      expect(second.exitCode).toBe(7);
      expect(second.stderr).toMatch(
        new RegExp(`another run holds the lock of the ledger of .*records-sync.* \\(pid ${first.pid} `),
      );
    } finally {
      await fx.clearFaults();
      expect((await first).exitCode).toBe(0);
    }
  });
});
