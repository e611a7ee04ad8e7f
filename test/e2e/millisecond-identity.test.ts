import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { exportedContacts, firstPlanChange, setCity } from '../helpers/contact-versions.js';
import { useEmulator } from '../helpers/emulator.js';

// Two versions of a contact can share a MILLISECOND updatedAt (two writes within one
// millisecond). The emulator's stuck clock (`POST /_emulator/clock {"stuck": true}`) shows every
// write at the millisecond it stuck at. A row's identity holds its content, so the second
// version is delivered, into files and into the sync snapshot, and the same row sent again is not.

const fx = useEmulator();

afterEach(async () => {
  expect(await fx.admin('POST', '/_emulator/clock', { stuck: false })).toEqual({ stuck: false });
});

async function stick(): Promise<string> {
  const answer = (await fx.admin('POST', '/_emulator/clock', { stuck: true })) as { stuck: boolean; shows: string };
  expect(answer.stuck).toBe(true);
  expect(answer.shows).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return answer.shows;
}

async function stateOf(env: NodeJS.ProcessEnv): Promise<{ file: string; state: { current: { seen: string[] } } }> {
  const [{ key }] = JSON.parse((await cnv(['export', 'state', 'list', '--json'], { env })).stdout) as Array<{
    key: string;
  }>;
  const { stateFile } = JSON.parse((await cnv(['export', 'state', 'show', key, '--json'], { env })).stdout) as {
    stateFile: string;
  };
  return { file: stateFile, state: JSON.parse(readFileSync(stateFile, 'utf8')).state };
}

describe('two versions within one millisecond (binary, stuck clock)', () => {
  it('export: the second version with the same id and millisecond updatedAt is delivered, once; an identical re-sent row is left out', async () => {
    const shows = await stick();
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-ms-')), 'contacts.ndjson');
    const first = await setCity(fx, 'ms.one@example.com', 'Lyon');
    expect(first).toBe(shows);
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const before = exportedContacts(out);
    expect(before.filter((r) => r.email === 'ms.one@example.com').map((r) => r.fields.City)).toEqual(['Lyon']);

    expect(await setCity(fx, 'ms.one@example.com', 'Nice')).toBe(first); // same id, same millisecond, other values
    const second = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'complete', rows: 1 });
    const after = exportedContacts(out);
    expect(after.filter((r) => r.email === 'ms.one@example.com').map((r) => r.fields.City)).toEqual(['Lyon', 'Nice']);
    expect(after).toHaveLength(before.length + 1);

    // Nothing changed since: the rows from the saved cursor are sent again and none is written.
    const third = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(JSON.parse(third.stdout)).toMatchObject({ status: 'complete', rows: 0 });
    expect(exportedContacts(out)).toHaveLength(before.length + 1);
    // What the state remembers carries the content hash of millisecond rows too (fields named by key: `#k`).
    expect((await stateOf(env)).state.current.seen.every((id) => /^[^#]+@[^#]+\.\d{3}Z#k[0-9a-f]{16}$/.test(id))).toBe(
      true,
    );
  });

  it('export: a state saved before (millisecond rows seen as id@updatedAt, no hash) continues exactly once', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-ms-')), 'contacts.ndjson');
    await setCity(fx, 'ms.legacy@example.com', 'Lyon');
    expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
    const lines = exportedContacts(out).length;
    // The state as the cnv before wrote it for millisecond times: the version alone.
    const { file, state } = await stateOf(env);
    expect(state.current.seen.length).toBeGreaterThan(0);
    const whole = JSON.parse(readFileSync(file, 'utf8'));
    whole.state.current.seen = state.current.seen.map((id) => id.replace(/#k[0-9a-f]{16}$/, ''));
    expect(whole.state.current.seen.every((id: string) => !id.includes('#'))).toBe(true);
    writeFileSync(file, JSON.stringify(whole));
    const again = await cnv(['export', 'contacts', '--out', out, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'complete', rows: 0 });
    expect(exportedContacts(out)).toHaveLength(lines);
  });

  it('contacts sync: a second version within the same millisecond reaches the snapshot, so the row that differs from it is sent', async () => {
    await stick();
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-ms-')), 'in.csv');
    writeFileSync(file, 'email,city\nms.sync@example.com,Lyon\n');
    const at = await setCity(fx, 'ms.sync@example.com', 'Lyon');
    const inSync = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--quiet'], { env });
    expect(inSync.exitCode, inSync.stderr).toBe(0);
    expect(await setCity(fx, 'ms.sync@example.com', 'Nice')).toBe(at); // someone else, within the same millisecond
    const plan = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--json'], { env });
    expect(plan.exitCode, plan.stderr).toBe(9);
    expect(firstPlanChange(plan.stdout)).toMatchObject({
      action: 'update',
      contact: 'ms.sync@example.com',
      changes: [{ field: 'fields.city', old: 'Nice', new: 'Lyon' }],
    });
  });
});
