import { describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Issue 38: a definite refusal (the API's own 4xx) never carries "the request may have reached
// the server and been applied" (it was not applied); `fields create` whose derived key a field of
// another object type holds names that field and suggests --key. A 5xx still carries the hint.
const fx = useEmulator();
const MAYBE_APPLIED = 'may have reached the server';

describe('definite refusals (binary)', () => {
  it('fields create with a key a COMPANY field holds: exit 3, the holder named, --key suggested, no "may have been applied"', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    // The emulator's account has the COMPANY field "Employees", key employees (as the account had).
    const derived = await cnv(
      ['fields', 'create', '--label', 'Employees', '--object-type', 'CONTACT', '--data-type', 'NUMBER'],
      { env },
    );
    expect(derived.stderr).toContain(
      'error: invalid_field: A field with key "employees" already exists: the COMPANY field "Employees" (NUMBER) holds it',
    );
    expect(derived.stderr).toContain(
      'hint: the key was derived from the label; give this field another with --key (e.g. --key employees_contact)',
    );
    expect(derived.stderr).not.toContain(MAYBE_APPLIED);
    expect(derived.exitCode).toBe(3);
    const given = await cnv(
      [
        'fields',
        'create',
        '--label',
        'Staff',
        '--object-type',
        'CONTACT',
        '--data-type',
        'NUMBER',
        '--key',
        'employees',
      ],
      { env },
    );
    expect(given.stderr).toContain('the COMPANY field "Employees" (NUMBER) holds it');
    expect(given.stderr).toContain('hint: give this field another key with --key');
    expect(given.exitCode).toBe(3);
  });

  // (A 5xx or a lost connection keeps the hint: test/integration/http-client.test.ts, test/commands/fields/create.test.ts.)
  it('any other 4xx of a request that is not safe to repeat: no "may have been applied" hint', async () => {
    const env = { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() };
    const refused = await cnv(['events', 'track', '--event', 'e', '--email', 'not-an-email'], { env });
    const api = await cnv(
      ['api', 'POST', '/v2/fields', '-f', 'label=Bad', '-f', 'objectType=NOPE', '-f', 'dataType=NUMBER'],
      { env },
    );
    for (const res of [refused, api]) {
      expect(res.exitCode, res.stderr).not.toBe(0);
      expect(res.stderr).not.toContain(MAYBE_APPLIED);
    }
  });
});
