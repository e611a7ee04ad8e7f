import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

const ESC = /\x1b\[/;
const lines = (text: string) => text.trimEnd().split('\n');

describe('tables on a terminal (fake TTY, in-process)', () => {
  it('campaigns list in a 60-column pane: borderless, the default columns, every line fitted, cut values end in …', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '3'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 60,
    });
    expect(res.exitCode).toBe(0);
    const out = lines(res.stdout);
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^id {2,}name/);
    expect(out[0]).not.toMatch(/type\.id|sfdcCampaignId|updatedAt/);
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(60);
    expect(res.stdout).toContain('…');
    expect(res.stdout).not.toMatch(/[│┌─┐└┘]/);
    expect(res.stdout).not.toMatch(ESC);
  });

  it('the ids are what one copies: in 72 columns the other columns give way first', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '3'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 72,
    });
    const out = lines(res.stdout);
    expect(out[1]).toMatch(/^c4000000-0000-4000-8000-000000000001  Spring p/);
    // The headings stay whole (issue 38): the name gives way instead.
    expect(out[0]).not.toContain('…');
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(72);
  });

  it('a wide terminal shows every default column whole', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '3'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 200,
    });
    expect(lines(res.stdout)[0]).toMatch(/^id {2,}name {2,}type\.name {2,}memberCount$/);
    expect(res.stdout).not.toContain('…');
  });

  it('--columns chooses the columns (any case) in the table and in CSV; an unknown one is exit 2 naming --columns', async () => {
    const table = await cnvInProcess(['campaigns', 'list', '--limit', '2', '--columns', 'name,TYPE.SYSTEMTYPE'], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 100,
    });
    expect(lines(table.stdout)[0]).toMatch(/^name {2,}type\.systemType$/);
    const csv = await cnvInProcess(['campaigns', 'list', '--limit', '1', '--columns', 'id,name', '-o', 'csv'], {
      env: fx.env,
    });
    expect(lines(csv.stdout)).toEqual([
      'id,name',
      expect.stringMatching(/^c4000000-0000-4000-8000-000000000001,Spring product webinar$/),
    ]);
    const defaults = await cnvInProcess(['campaigns', 'list', '--limit', '1', '-o', 'csv'], { env: fx.env });
    expect(lines(defaults.stdout)[0]).toBe(
      'id,name,type.id,type.name,type.systemType,sfdcCampaignId,memberCount,createdAt,updatedAt,_extra',
    );
    const bad = await cnvInProcess(['campaigns', 'list', '--columns', 'id,colour'], { env: fx.env, stdoutIsTTY: true });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: usage: --columns: no column "colour" \(there are: id, name, /m);
  });

  it('colour only for status values, only on a TTY with colour allowed', async () => {
    const coloured = await cnvInProcess(['doctor'], { env: fx.env, stdoutIsTTY: true, columns: 120 });
    const okLine = lines(coloured.stdout).find((l) => l.startsWith('config'))!;
    expect(okLine).toMatch(/\x1b\[32mok\x1b\[39m/);
    expect(lines(coloured.stdout)[0]).not.toMatch(ESC);
    expect(okLine.replace(/\x1b\[32mok\x1b\[39m/, '')).not.toMatch(ESC);
    const plain = await cnvInProcess(['doctor', '--no-color'], { env: fx.env, stdoutIsTTY: true, columns: 120 });
    expect(plain.stdout).not.toMatch(ESC);
    const noColorEnv = await cnvInProcess(['doctor'], {
      env: { ...fx.env, NO_COLOR: '1' },
      stdoutIsTTY: true,
      columns: 120,
    });
    expect(noColorEnv.stdout).not.toMatch(ESC);
  });

  it('a record is name/value lines, fitted; its subscription status coloured', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email], {
      env: fx.env,
      stdoutIsTTY: true,
      columns: 50,
    });
    for (const line of lines(res.stdout)) expect([...line.replace(/\x1b\[\d+m/g, '')].length).toBeLessThanOrEqual(50);
    expect(res.stdout).toMatch(/^subscriptionStatus {2,}\x1b\[32mSUBSCRIBED\x1b\[39m$/m);
    expect(res.stdout).toMatch(/^email {2,}ada@example\.com$/m);
  });

  it('nothing changes when piped: JSON by default, and -o table is not cut to any width', async () => {
    const piped = await cnvInProcess(['campaigns', 'list', '--limit', '3'], { env: fx.env, columns: 40 });
    expect(JSON.parse(piped.stdout)).toHaveLength(3);
    const table = await cnvInProcess(['campaigns', 'list', '--limit', '3', '-o', 'table'], {
      env: fx.env,
      columns: 40,
    });
    expect(table.stdout).not.toContain('…');
    expect(table.stdout).not.toMatch(ESC);
    expect(Math.max(...lines(table.stdout).map((l) => l.length))).toBeGreaterThan(40);
  });
});
