import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Field keys that are names of Object.prototype (`__proto__`, `constructor`, `toString`,
// `valueOf`) are data like any other key, through the executable: every flag that takes a
// field sends it, every output that shows fields shows it (a plain assignment made `__proto__`
// the object's prototype, and zod's record dropped it, so it was sent and shown nowhere).
const fx = useEmulator({ rateLimit: 0 });

const run = (args: string[]) => cnv(args, { env: fx.env });

async function stored(email: string): Promise<{ fields: Record<string, unknown>; company: unknown }> {
  const [contact] = await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`);
  return contact;
}

beforeAll(async () => {
  for (const [key, objectType] of [
    ['__proto__', 'CONTACT'],
    ['constructor', 'CONTACT'],
    ['toString', 'COMPANY'],
    ['valueOf', 'COMPANY'],
  ]) {
    const r = await run([
      'fields',
      'create',
      '--key',
      key,
      '--label',
      `L ${key}`,
      '--object-type',
      objectType,
      '--data-type',
      'STRING',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
});

describe('object-key names as field keys', () => {
  it('contacts upsert --field / -f / -F / --company-field send them; contacts get shows them (JSON, table, CSV)', async () => {
    const up = await run([
      'contacts',
      'upsert',
      '--email',
      'proto@example.com',
      '--field',
      '__proto__=pk',
      '-F',
      'constructor=ck',
      '--company-field',
      'toString=ts',
      '--company-raw-field',
      'valueOf=vo',
    ]);
    expect(up.exitCode, up.stderr).toBe(0);
    const contact = await stored('proto@example.com');
    expect(Object.getOwnPropertyDescriptor(contact.fields, '__proto__')?.value).toBe('pk');
    expect(contact.fields.constructor).toBe('ck');
    expect(JSON.stringify(contact.company)).toMatch(/"toString":"ts".*"valueOf":"vo"|"valueOf":"vo".*"toString":"ts"/);
    const get = await run(['contacts', 'get', '--email', 'proto@example.com', '--json']);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/"__proto__": "pk"/);
    expect(get.stdout).toMatch(/"constructor": "ck"/);
    const table = await run(['contacts', 'get', '--email', 'proto@example.com', '-o', 'table']);
    expect(table.stdout).toMatch(/fields\.__proto__\s+pk/);
    const csv = await run(['contacts', 'get', '--email', 'proto@example.com', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toContain('fields.__proto__');
    const query = await run(['contacts', 'get', '--email', 'proto@example.com', '-q', 'fields."__proto__"']);
    expect(query.stdout.trim()).toBe('pk');
  });

  it('contacts upsert --file with a fields.__proto__ column, --set, and --data / --set of events track, -F of cnv api', async () => {
    const file = join(tempConfigDir(), 'contacts.csv');
    writeFileSync(file, 'email,fields.__proto__,fields.constructor\nfile@example.com,from-file,c\n');
    const up = await run(['contacts', 'upsert', '--file', file]);
    expect(up.exitCode, up.stderr).toBe(0);
    const contact = await stored('file@example.com');
    expect(Object.getOwnPropertyDescriptor(contact.fields, '__proto__')?.value).toBe('from-file');
    const track = await run([
      'events',
      'track',
      '--email',
      'file@example.com',
      '--event',
      'e',
      '--data',
      '{"__proto__":{"a":1},"constructor":2}',
      '--dry-run',
    ]);
    expect(track.exitCode, track.stderr).toBe(0);
    expect(track.stdout).toMatch(/"__proto__": \{\s+"a": 1\s+\}/);
    const set = await run([
      'events',
      'track',
      '--email',
      'file@example.com',
      '--event',
      'e',
      '--set',
      '__proto__=3',
      '--dry-run',
    ]);
    expect(set.stdout).toMatch(/"__proto__": 3/);
    const api = await run([
      'api',
      'POST',
      '/v2/contacts',
      '-f',
      'email=api@example.com',
      '-F',
      'fields[__proto__]=apk',
    ]);
    expect(api.exitCode, api.stderr).toBe(0);
    expect(Object.getOwnPropertyDescriptor((await stored('api@example.com')).fields, '__proto__')?.value).toBe('apk');
  });
});
