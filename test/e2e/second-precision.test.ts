import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { exportedContacts, firstPlanChange, setCity } from '../helpers/contact-versions.js';
import { useEmulator } from '../helpers/emulator.js';

// A server that shows updatedAt in whole seconds (`cnv emulator --timestamp-precision s`): two
// versions of a contact written within one second share id and updatedAt. Each is delivered
// once (identity includes the row's content), into files and into the sync snapshot.

const fx = useEmulator({ timestampPrecision: 's' });

/**
 * Every write from now on falls within one second (the emulator's clock, in this process):
 * what a busy second on such a server does, without racing the wall clock.
 */
function oneSecond(emu: Emulator): void {
  let ms = Date.parse('2031-01-01T00:00:00.000Z');
  emu.store.clock.nowMs = () => ++ms;
}

describe('a server of second precision (binary)', () => {
  it('export: a second version within the same second is delivered, once; a re-sent identical row is left out', async () => {
    oneSecond(fx.emulator);
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-secs-')), 'contacts.ndjson');
    const first = await setCity(fx, 'sec.one@example.com', 'Lyon');
    expect(first).toBe('2031-01-01T00:00:00Z');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const before = exportedContacts(out);
    expect(before.filter((r) => r.email === 'sec.one@example.com').map((r) => r.fields.City)).toEqual(['Lyon']);

    expect(await setCity(fx, 'sec.one@example.com', 'Nice')).toBe(first); // same id, same updatedAt, other values
    const second = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'complete', rows: 1 });
    const after = exportedContacts(out);
    expect(after.filter((r) => r.email === 'sec.one@example.com').map((r) => r.fields.City)).toEqual(['Lyon', 'Nice']);
    expect(after).toHaveLength(before.length + 1);

    // Nothing changed since: the same rows are sent again and none is written.
    const third = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(JSON.parse(third.stdout)).toMatchObject({ status: 'complete', rows: 0 });
    expect(exportedContacts(out)).toHaveLength(before.length + 1);
  });

  it('export: a state saved before content identities (seen as id@updatedAt) continues exactly once', async () => {
    oneSecond(fx.emulator);
    const configDir = tempConfigDir();
    const env = { ...fx.env, CNV_CONFIG_DIR: configDir };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-secs-')), 'contacts.ndjson');
    await setCity(fx, 'sec.legacy@example.com', 'Lyon');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const lines = exportedContacts(out).length;
    // The state as an earlier cnv wrote it: `seen` without the content hashes.
    const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
      key: string;
    }>;
    const { stateFile } = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout) as {
      stateFile: string;
    };
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(state.state.current.seen[0]).toMatch(/^[^#]+@[^#]+#k[0-9a-f]{16}$/);
    state.state.current.seen = state.state.current.seen.map((id: string) => id.replace(/#k[0-9a-f]{16}$/, ''));
    writeFileSync(stateFile, JSON.stringify(state));
    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'complete', rows: 0 });
    expect(exportedContacts(out)).toHaveLength(lines);
  });

  it('contacts sync: a second version within the same second reaches the snapshot, so the row that differs from it is sent', async () => {
    oneSecond(fx.emulator);
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-secs-')), 'in.csv');
    writeFileSync(file, 'email,city\nsec.sync@example.com,Lyon\n');
    const at = await setCity(fx, 'sec.sync@example.com', 'Lyon');
    const inSync = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--quiet'], { env });
    expect(inSync.exitCode).toBe(0);
    expect(await setCity(fx, 'sec.sync@example.com', 'Nice')).toBe(at); // someone else, within the same second
    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
    expect(plan.exitCode).toBe(9);
    expect(firstPlanChange(plan.stdout)).toMatchObject({
      action: 'update',
      contact: 'sec.sync@example.com',
      changes: [{ field: 'fields.city', old: 'Nice', new: 'Lyon' }],
    });
  });
});
