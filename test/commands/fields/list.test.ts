import { describe, expect, it } from 'vitest';
import { FIXTURE_CUSTOM_OBJECT as CO } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);

describe('cnv fields list (in-process)', () => {
  it('prints one page as JSON and the next cursor on stderr; --cursor continues', async () => {
    const first = await cnvInProcess(['fields', 'list', '--object-type', 'contact', '--limit', '3'], { env: fx.env });
    expect(first.exitCode).toBe(0);
    const page = json(first.stdout);
    expect(page.map((f: { key: string }) => f.key)).toEqual(['firstName', 'lastName', 'city']);
    expect(page[0]).toEqual({
      key: 'firstName',
      label: 'First name',
      objectType: 'CONTACT',
      dataType: 'STRING',
      readOnly: false,
    });
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const next = await cnvInProcess(['fields', 'list', '--cursor', cursor!, '--limit', '2'], { env: fx.env });
    expect(json(next.stdout).map((f: { key: string }) => f.key)).toEqual(['score', 'vip']);
  });

  it('--all streams every page as NDJSON, the same as one big page', async () => {
    const all = await cnvInProcess(['fields', 'list', '--all', '--limit', '4', '-o', 'ndjson'], { env: fx.env });
    expect(all.exitCode).toBe(0);
    const lines = all.stdout.trim().split('\n').map(json);
    const big = json((await cnvInProcess(['fields', 'list', '--limit', '1000'], { env: fx.env })).stdout);
    expect(lines).toEqual(big);
    expect(all.stderr).toBe('');
  });

  it('prints CSV with a stable header, relationship columns included', async () => {
    const res = await cnvInProcess(['fields', 'list', '--custom-object-id', CO.id, '--all', '-o', 'csv'], {
      env: fx.env,
    });
    const [header, ...rows] = res.stdout.trim().split('\n');
    expect(header).toBe(
      'key,label,objectType,dataType,readOnly,customObjectId,relationship.objectType,relationship.customObjectId,relationship.pairedKey,relationship.reverse,_extra',
    );
    expect(rows).toContain(`subscriber,Subscriber,CUSTOM_OBJECT,STRING,false,${CO.id},CONTACT,,subscriptions,false,`);
    expect(rows).toContain(`syncedAt,Synced at,CUSTOM_OBJECT,DATETIME,true,${CO.id},,,,,`);
  });

  it('prints a table on a TTY-less run when asked, and refuses bad flags with exit 2', async () => {
    const table = await cnvInProcess(['fields', 'list', '--object-type', 'COMPANY', '-o', 'table', '--no-color'], {
      env: fx.env,
    });
    expect(table.stdout).toMatch(/accountOwner .*Account owner .*COMPANY .*STRING .*true/);
    const bad = await cnvInProcess(['fields', 'list', '--object-type', 'lead'], { env: fx.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/CUSTOM_OBJECT/);
    const badId = await cnvInProcess(['fields', 'list', '--custom-object-id', 'nope'], { env: fx.env });
    expect(badId.exitCode).toBe(2);
    const mixed = await cnvInProcess(['fields', 'list', '--object-type', 'CONTACT', '--custom-object-id', CO.id], {
      env: fx.env,
    });
    expect(mixed.exitCode).toBe(2);
  });

  it('an unknown custom object lists nothing (the spec has no such filter: CUSTOM_OBJECT fields are filtered here); a bad cursor exits 3 with a hint', async () => {
    const missing = await cnvInProcess(
      ['fields', 'list', '--custom-object-id', 'c0000000-0000-4000-8000-0000000000ff', '--json'],
      { env: fx.env },
    );
    expect(missing.exitCode).toBe(0);
    expect(JSON.parse(missing.stdout)).toEqual([]);
    const cursor = await cnvInProcess(['fields', 'list', '--cursor', 'garbage'], { env: fx.env });
    expect(cursor.exitCode).toBe(3);
    expect(cursor.stderr).toMatch(/invalid_cursor/);
  });
});
