import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const fx = useEmulator();

describe('output formats (in-process)', () => {
  it('a record prints as a readable table on a TTY', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '--no-color'], {
      env: fx.env,
      stdoutIsTTY: true,
    });
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toMatch(/^cnvContactId {2,}a0000000-0000-4000-8000-000000000001$/m);
    expect(res.stdout).toMatch(/^fields\.city {2,}London$/m);
    expect(res.stdout).not.toMatch(/\x1b\[/);
  });

  it('--json wins over the TTY', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '--json'], {
      env: fx.env,
      stdoutIsTTY: true,
    });
    expect(JSON.parse(res.stdout).email).toBe('ada@example.com');
  });

  it('-o ndjson and -o csv', async () => {
    const nd = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '-o', 'ndjson'], {
      env: fx.env,
    });
    expect(nd.stdout.trim().split('\n')).toHaveLength(1);
    const csv = await cnvInProcess(['contacts', 'get', '--email', FIXTURE_CONTACTS.ada.email, '-o', 'csv'], {
      env: fx.env,
    });
    const [header, row] = csv.stdout.trim().split('\n');
    expect(header.split(',')).toContain('fields.city');
    expect(row).toContain('London');
  });

  it('an unknown -o value is a usage error', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com', '-o', 'xml'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(
      /^error: invalid_value: --format: expected one of table, json, ndjson, csv, markdown \(any case\), got "xml"$/m,
    );
    // markdown is the --about of the tap and the target only.
    const md = await cnvInProcess(['contacts', 'get', '--email', 'a@example.com', '-o', 'markdown'], { env: fx.env });
    expect(md.exitCode).toBe(2);
    expect(md.stderr).toContain('-o markdown: only `cnv tap --about` and `cnv target --about` write markdown');
  });

  it('--quiet silences warnings but not errors', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'nobody@example.com', '--quiet'], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.full },
    });
    expect(res.exitCode).toBe(5);
    expect(res.stderr).toMatch(/contact_not_found/);
  });
});
