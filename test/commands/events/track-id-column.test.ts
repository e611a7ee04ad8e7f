import { describe, expect, it } from 'vitest';
import { idColumnEventId } from '../../../src/commands/events/track-file.js';
import { FIXTURE_CONTACTS as FX } from '../../../src/emulator/seed/fixtures.js';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

// events track --file --id-column in-process: the event id derived from the column (or the
// file's own clientEventId), the column never sent, its flags' rules, a line without an id.

const fx = useEmulator();
const { write, reportPath, readReport } = batchFiles('cnv-track-id-');
const stored = async (clientEventId: string) =>
  (await fx.admin('GET', `/_emulator/state/events?clientEventId=${clientEventId}`)) as Array<{ data: object }>;

function run(args: string[], config = tempConfigDir()) {
  return cnvInProcess(['events', 'track', ...args], { env: { ...fx.env, CNV_CONFIG_DIR: config } });
}

describe('cnv events track --id-column (in-process)', () => {
  it('each line gets the id derived from the column, which is not sent; a blank id is an invalid line; the ids repeat in a new place', async () => {
    const file = write('orders.csv', `Order ID,event,email\no-1,ordered,${FX.ada.email}\n,ordered,${FX.ada.email}\n`);
    const report = reportPath();
    const res = await run(['--file', file, '--id-column', 'order_id', '--report', report]);
    expect(res.exitCode).toBe(6);
    expect(res.stderr).toMatch(/Order ID\s+-> not sent\s+\(ignored \(--ignore-column\)\)/);
    const rows = readReport(report);
    expect(rows.map((r) => [r.identifier, r.status])).toEqual([
      [idColumnEventId('order_id', 'o-1'), 'tracked'],
      ['', 'invalid'],
    ]);
    expect(rows[1].message).toContain('--id-column "order_id": the cell is blank or not text');
    expect((await stored(idColumnEventId('order_id', 'o-1')))[0].data).toEqual({});
    // The same line elsewhere in another file (another config directory: no ledger) is the same event.
    const moved = write('moved.csv', `event,email,Order ID\nordered,${FX.ada.email},o-1\n`);
    const again = await run(['--file', moved, '--id-column', 'order_id', '--json']);
    expect(JSON.parse(again.stdout).byStatus).toEqual({ duplicate: 1 });
  });

  it("--id-column clientEventId keys the ledger by the file's own ids, sent as they are; a mapped id column is sent too", async () => {
    const config = tempConfigDir();
    const own = write('own.ndjson', `{"clientEventId":"own-1","event":"x","email":"${FX.ada.email}"}\n`);
    expect((await run(['--file', own, '--id-column', 'clientEventId'], config)).exitCode).toBe(0);
    expect(await stored('own-1')).toHaveLength(1);
    const rerun = await run(['--file', own, '--id-column', 'clientEventId', '--json'], config);
    expect(JSON.parse(rerun.stdout).ledger).toMatchObject({ unchanged: 1, added: 0 });
    const mapped = write('mapped.csv', `ref,event,email\nr-9,x,${FX.ada.email}\n`);
    expect((await run(['--file', mapped, '--id-column', 'ref', '--map', 'ref=data.ref'], config)).exitCode).toBe(0);
    expect((await stored(idColumnEventId('ref', 'r-9')))[0].data).toEqual({ ref: 'r-9' });
  });

  it('its rules: only with --file, not with --resume-from-report or --force; a header without the column refuses the file', async () => {
    expect((await run(['--event', 'x', '--email', FX.ada.email, '--id-column', 'id'])).stderr).toContain(
      '--id-column: goes only with --file',
    );
    const file = write('e.csv', `event,email\nx,${FX.ada.email}\n`);
    const resumed = await run(['--file', file, '--id-column', 'event', '--resume-from-report', 'r.csv']);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain('--resume-from-report: not with --id-column');
    const missing = await run(['--file', file, '--id-column', 'order_id']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--id-column "order_id": .* has no such column/);
  });
});
