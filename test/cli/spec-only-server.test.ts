import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';

// A server that is only the spec (undici's MockAgent): the CLI must send only the parameters
// the spec names and cope with what the spec leaves open.
const BASE = 'https://api.test';
const CO = 'c0000000-0000-4000-8000-000000000001';
const OTHER_CO = 'c0000000-0000-4000-8000-000000000002';
let agent: MockAgent;
let env: Record<string, string>;
let dir: string;
let paths: string[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = tempConfigDir();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: 'sk_live_mock_0123456789', CNV_CONFIG_DIR: dir };
  paths = [];
});
afterEach(() => agent.close());

const run = (args: string[]) => cnvInProcess(args, { env, dispatcher: agent });
const field = (key: string, dataType: string, customObjectId?: string) => ({ key, label: key, objectType: 'CUSTOM_OBJECT', dataType, ...(customObjectId ? { customObjectId } : {}) });
/** Answers GET /v2/fields (any query) with these pages in turn, recording each path asked. */
function fieldPages(pages: unknown[][]) {
  pages.forEach((fields, i) => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
      .reply((req) => {
        paths.push(req.path);
        return { statusCode: 200, data: { data: { fields }, pagination: { nextCursor: i < pages.length - 1 ? `page-${i + 1}` : null } } };
      });
  });
}
/** Answers the record batch, keeping each body sent. */
function batchReply(bodies: unknown[]) {
  agent
    .get(BASE)
    .intercept({ path: `/v2/custom-objects/${CO}/records/batch`, method: 'POST' })
    .reply((req) => {
      bodies.push(JSON.parse(String(req.body)));
      const records = (JSON.parse(String(req.body)) as { records: Array<{ clientDedupKey: string }> }).records;
      return { statusCode: 200, data: { data: { processed: records.length, succeeded: records.length, failed: 0, results: records.map((r, i) => ({ success: true, id: `00000000-0000-4000-8000-00000000000${i}`, clientDedupKey: r.clientDedupKey, operation: 'CREATE' })) } } };
    })
    .persist();
}
const csv = (text: string) => {
  const path = join(dir, 'records.csv');
  writeFileSync(path, text);
  return path;
};

describe('records upsert against a server that is only the spec', () => {
  it('lists definitions with objectType, limit and cursor only, keeps this custom object\'s client-side, and coerces with them', async () => {
    fieldPages([[field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)], [field('autoRenew', 'BOOLEAN', CO)]]);
    const bodies: any[] = [];
    batchReply(bodies);
    const res = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats,autoRenew,otherSeats\nr-1,3,yes,4\nr-2,5,no,\n')]);
    for (const p of paths) {
      const query = new URL(p, BASE).searchParams;
      expect([...query.keys()].every((k) => ['objectType', 'limit', 'cursor'].includes(k)), p).toBe(true);
      expect(query.get('objectType')).toBe('CUSTOM_OBJECT');
    }
    expect(paths).toHaveLength(2);
    expect(new URL(paths[1], BASE).searchParams.get('cursor')).toBe('page-1');
    // otherSeats belongs to another custom object: the file is refused before any record is sent.
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain('a column that names nothing POST /v2/custom-objects/c0000000-0000-4000-8000-000000000001/records/batch takes: "otherSeats" (no key or field is near it)');
    expect(bodies).toEqual([]);
    fieldPages([[field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)], [field('autoRenew', 'BOOLEAN', CO)]]);
    const left = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats,autoRenew,otherSeats\nr-1,3,yes,4\nr-2,5,no,\n'), '--ignore-column', 'otherSeats']);
    expect(left.exitCode, left.stderr).toBe(0);
    expect(bodies.flatMap((b) => b.records)).toEqual([{ clientDedupKey: 'r-1', fields: { seats: 3, autoRenew: true } }, { clientDedupKey: 'r-2', fields: { seats: 5, autoRenew: false } }]);
  });

  it.each([
    ['a 404 (no such list on this server)', 404, { error: { code: 'not_found', message: 'No route' } }, /could not read the field definitions \(not_found: No route\)/],
    ['a 403', 403, { error: { code: 'forbidden', message: 'no' } }, /could not read the field definitions \(forbidden: no\)/],
    ['an off-contract 200', 200, { data: { items: [] } }, /could not read the field definitions \(invalid_response/],
  ])('when the definitions cannot be read (%s), warns and sends the values uncoerced, as --no-coerce', async (_name, status, body, warning) => {
    agent.get(BASE).intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' }).reply(status, body);
    const bodies: any[] = [];
    batchReply(bodies);
    const res = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats\nr-1,3\n')]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`warning: ${warning.source}`));
    expect(res.stderr).toMatch(/as with --no-coerce/);
    expect(bodies).toEqual([{ records: [{ clientDedupKey: 'r-1', fields: { seats: '3' } }] }]);
  });

  it('--check still needs the definitions: a failed read is an error, not a warning', async () => {
    agent.get(BASE).intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' }).reply(403, { error: { code: 'forbidden', message: 'no' } });
    const res = await run(['records', 'upsert', CO, '--file', csv('clientDedupKey,seats\nr-1,3\n'), '--check']);
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toMatch(/forbidden/);
  });
});

describe('fields list --custom-object-id against a server that is only the spec', () => {
  it('sends objectType only and keeps the rows of that custom object', async () => {
    fieldPages([[field('seats', 'NUMBER', CO), field('otherSeats', 'NUMBER', OTHER_CO)]]);
    const res = await run(['fields', 'list', '--custom-object-id', CO, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect([...new URL(paths[0], BASE).searchParams.entries()]).toEqual([['objectType', 'CUSTOM_OBJECT']]);
    expect(JSON.parse(res.stdout).map((f: { key: string }) => f.key)).toEqual(['seats']);
  });
});

describe('--limit on list commands: clamped into the spec\'s range, as the exports do', () => {
  const listed = (path: string) => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith(path), method: 'GET' })
      .reply((req) => {
        paths.push(req.path);
        return { statusCode: 200, data: { data: { campaigns: [], fields: [] }, pagination: { nextCursor: null } } };
      });
  };
  it.each([
    [['campaigns', 'list', '--limit', '0'], '/v2/campaigns', '1'],
    [['campaigns', 'list', '--limit', '-5'], '/v2/campaigns', '1'],
    [['campaigns', 'list', '--limit', '500'], '/v2/campaigns', '100'],
    [['fields', 'list', '--limit', '0'], '/v2/fields', '1'],
    [['fields', 'list', '--limit', '5000'], '/v2/fields', '5000'],
  ])('%j (%s) sends limit=%s', async (args, path, limit) => {
    listed(path);
    const res = await run([...args, '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(new URL(paths[0], BASE).searchParams.get('limit')).toBe(limit);
  });

  it('still refuses a limit that is not a whole number (exit 2)', async () => {
    const res = await run(['campaigns', 'list', '--limit', 'ten']);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--limit/);
  });
});

describe('local email checks leave unusual but possible addresses to the server', () => {
  it('sends jörg@example.com, user@bücher.de and a!b@example.com: single upsert and batch rows', async () => {
    const sent: string[] = [];
    agent
      .get(BASE)
      .intercept({ path: '/v2/contacts', method: 'POST' })
      .reply((req) => {
        sent.push(JSON.parse(String(req.body)).email);
        return { statusCode: 200, data: { data: { cnvContactId: '00000000-0000-4000-8000-000000000001', contactCreated: true } } };
      });
    const single = await run(['contacts', 'upsert', '--email', 'jörg@example.com']);
    expect(single.exitCode, single.stderr).toBe(0);
    expect(sent).toEqual(['jörg@example.com']);

    const audience = '00000000-0000-4000-8000-0000000000aa';
    const batch: any[] = [];
    agent
      .get(BASE)
      .intercept({ path: `/v2/audiences/${audience}/contacts/batch`, method: 'POST' })
      .reply((req) => {
        batch.push(JSON.parse(String(req.body)));
        const contacts = JSON.parse(String(req.body)).contacts as unknown[];
        return { statusCode: 200, data: { data: { results: contacts.map(() => ({ added: true, cnvContactId: '00000000-0000-4000-8000-000000000001' })) } } };
      });
    const path = join(dir, 'members.csv');
    writeFileSync(path, 'email\nuser@bücher.de\na!b@example.com\nnot-an-address\n');
    const res = await run(['audience', 'add', audience, '--batch', path]);
    expect(res.exitCode).toBe(6);
    expect(res.stderr).toMatch(/line 4: .*expected an email address/);
    expect(batch[0].contacts).toEqual([{ email: 'user@bücher.de' }, { email: 'a!b@example.com' }]);
  });
});
