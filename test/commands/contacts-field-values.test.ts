import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The emulator's demo business: city STRING, score NUMBER, vip BOOLEAN; company employees NUMBER.
const fx = useEmulator();

const fieldsOf = async (email: string) => {
  const got = await cnvInProcess(['contacts', 'get', '--email', email], { env: fx.env });
  return JSON.parse(got.stdout).fields as Record<string, unknown>;
};

describe('cnv contacts upsert field values (in-process)', () => {
  it('--field city=10115 stores the string "10115" in a STRING field, a NUMBER field gets a number', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'typed@example.com', '--field', 'city=10115', '--field', 'score=42', '--field', 'vip=no'], { env: fx.env });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('typed@example.com')).toMatchObject({ city: '10115', score: 42, vip: false });
  });

  it('-f keeps a string, -F types it, --company-field is converted too', async () => {
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'split@example.com', '-f', 'city=10115', '-F', 'score=7', '--company-field', 'employees=12'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('split@example.com')).toMatchObject({ city: '10115', score: 7 });
    // -F sends what it is told: a number to a STRING field is the API's invalid_field (exit 3).
    const typed = await cnvInProcess(['contacts', 'upsert', '--email', 'split@example.com', '-F', 'city=10115'], { env: fx.env });
    expect(typed.exitCode).toBe(3);
    expect(typed.stderr).toContain('invalid_field');
  });

  it('a value that does not fit its field is exit 2 and nothing is sent', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'never.sent@example.com', '--field', 'score=abc'], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('--field score: field "score" (NUMBER): "abc" is not a number');
    expect((await cnvInProcess(['contacts', 'get', '--email', 'never.sent@example.com'], { env: fx.env })).exitCode).toBe(5);
  });

  it('--file applies converted --field values to every row', async () => {
    const res = await cnvInProcess(['contacts', 'upsert', '--file', '-', '--field', 'city=01067'], { env: fx.env, input: 'email\nrow.one@example.com\n' });
    expect(res.exitCode).toBe(0);
    expect(await fieldsOf('row.one@example.com')).toMatchObject({ city: '01067' });
  });
});
