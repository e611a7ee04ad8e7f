import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cnvInProcess } from '../helpers/cli.js';
import { MOCK_API, useFakeApi } from '../helpers/fake-api.js';

// A server that is only the spec (undici's MockAgent): the CLI must send only the parameters
// the spec names and cope with what the spec leaves open.
const BASE = MOCK_API;
const api = useFakeApi();
let paths: string[];

beforeEach(() => {
  paths = [];
});

const run = (args: string[]) => cnvInProcess(args, { env: api.env, dispatcher: api.dispatcher });

describe("--limit on list commands: clamped into the spec's range, as the exports do", () => {
  const listed = (path: string) => {
    api.agent
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
    api.agent
      .get(BASE)
      .intercept({ path: '/v2/contacts', method: 'POST' })
      .reply((req) => {
        sent.push(JSON.parse(String(req.body)).email);
        return {
          statusCode: 200,
          data: { data: { cnvContactId: '00000000-0000-4000-8000-000000000001', contactCreated: true } },
        };
      });
    const single = await run(['contacts', 'upsert', '--email', 'jörg@example.com']);
    expect(single.exitCode, single.stderr).toBe(0);
    expect(sent).toEqual(['jörg@example.com']);

    const audience = '00000000-0000-4000-8000-0000000000aa';
    const batch: any[] = [];
    api.agent
      .get(BASE)
      .intercept({ path: `/v2/audiences/${audience}/contacts/batch`, method: 'POST' })
      .reply((req) => {
        batch.push(JSON.parse(String(req.body)));
        const contacts = JSON.parse(String(req.body)).contacts as unknown[];
        return {
          statusCode: 200,
          data: {
            data: {
              results: contacts.map(() => ({ added: true, cnvContactId: '00000000-0000-4000-8000-000000000001' })),
            },
          },
        };
      });
    const path = join(api.dir, 'members.csv');
    writeFileSync(path, 'email\nuser@bücher.de\na!b@example.com\nnot-an-address\n');
    const res = await run(['audience', 'add', audience, '--batch', path]);
    expect(res.exitCode).toBe(6);
    expect(res.stderr).toMatch(/line 4: .*expected an email address/);
    expect(batch[0].contacts).toEqual([{ email: 'user@bücher.de' }, { email: 'a!b@example.com' }]);
  });
});
