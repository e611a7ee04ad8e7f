import { describe, expect, it } from 'vitest';
import { FIXTURE_CUSTOM_OBJECT } from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

// records sync in-process: what the API refused goes again only once it changes, what failed
// goes again next run (the hint says so), a key's rows stay in file order, --dry-run shows only
// what would be sent.

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-records-sync-');
const CO = FIXTURE_CUSTOM_OBJECT.id;
const ROUTE = 'POST /v2/custom-objects/:customObjectId/records/batch';
const sent = async () => (await fx.stats()).byRoute?.[ROUTE] ?? 0;
const seats = async (key: string) =>
  (
    (await fx.admin('GET', `/_emulator/state/records?clientDedupKey=${key}`)) as Array<{ fields: { seats?: unknown } }>
  )[0]?.fields.seats;

function run(args: string[], config: string) {
  return cnvInProcess(['records', 'sync', CO, ...args], { env: { ...fx.env, CNV_CONFIG_DIR: config } });
}

describe('cnv records sync (in-process)', () => {
  it('a record the API refused is not sent again until its values change; one that failed is sent again next run', async () => {
    const config = tempConfigDir();
    const nd = (ok: unknown, bad: unknown) =>
      write(
        'refused.ndjson',
        [
          ['rs-ok', ok],
          ['rs-bad', bad],
        ]
          .map(([k, v]) => JSON.stringify({ clientDedupKey: k, seats: v }))
          .join('\n') + '\n',
      );
    const file = nd(3, 'many');
    const first = await run(['--file', file, '--no-coerce'], config);
    expect(first.exitCode).toBe(6);
    await fx.resetStats();
    const report = reportPath();
    const again = await run(['--file', file, '--no-coerce', '--report', report], config);
    expect(again.exitCode).toBe(6);
    expect(await sent()).toBe(0);
    expect(readReport(report).map((r) => [r.identifier, r.status, r.error])).toEqual([
      ['rs-ok', 'unchanged', ''],
      ['rs-bad', 'failed', 'invalid_field'],
    ]);
    expect(readReport(report)[1].message).toContain('refused in an earlier run with these values');
    const fixed = await run(['--file', nd(3, 4), '--no-coerce'], config);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(await sent()).toBe(1);
    expect(await seats('rs-bad')).toBe(4);

    // A chunk that fails for the server's reason (retries exhausted): its rows go again next run, as the hint says.
    const next = nd(5, 4);
    await fx.faults({ failNext: 10 });
    const failed = await cnvInProcess(['records', 'sync', CO, '--file', next, '--no-coerce', '--max-retries', '0'], {
      env: { ...fx.env, CNV_CONFIG_DIR: config },
    });
    expect(failed.exitCode).toBe(7);
    expect(failed.stderr).toContain('hint: run the same command again: the ledger holds every outcome recorded so far');
    await fx.clearFaults();
    await fx.resetStats();
    expect((await run(['--file', next, '--no-coerce'], config)).exitCode).toBe(0);
    expect(await sent()).toBe(1);
    expect(await seats('rs-ok')).toBe(5);
  });

  it("a key's rows: a file repeating a key unchanged sends none; a change to its first row sends it and every later row, in order", async () => {
    const config = tempConfigDir();
    const rows = (a: number, b: number) =>
      write('twice.csv', `clientDedupKey,seats\nrs-twice,${a}\nrs-other,1\nrs-twice,${b}\n`);
    expect((await run(['--file', rows(1, 2)], config)).exitCode).toBe(0);
    await fx.resetStats();
    expect((await run(['--file', rows(1, 2)], config)).exitCode).toBe(0);
    expect(await sent()).toBe(0);
    const changed = await run(['--file', rows(7, 2), '--json'], config);
    expect(JSON.parse(changed.stdout).ledger).toMatchObject({ updated: 2, unchanged: 1 });
    expect(await seats('rs-twice')).toBe(2);
    // --dry-run prints the requests of the rows that would be sent, and only those.
    const dry = await cnvInProcess(['records', 'sync', CO, '--file', rows(7, 3), '--dry-run'], {
      env: { ...fx.env, CNV_CONFIG_DIR: config },
    });
    expect(dry.exitCode).toBe(0);
    const requests = dry.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(requests).toHaveLength(1);
    expect(requests[0].body.records).toEqual([{ clientDedupKey: 'rs-twice', fields: { seats: 3 } }]);
  });
});
