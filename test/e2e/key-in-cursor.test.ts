import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnv } from '../helpers/cli.js';
import { keyEchoRun, storedFiles } from '../helpers/key-echo.js';
import { hostileServer, type HostileServer } from '../helpers/hostile-server.js';

// Issue 47: a value cnv sends back to the server is never altered; masking is for what it prints
// and stores. Before, a cursor holding the key was masked with the page and sent back mangled
// (every export stopped after page 1, exit 3, blaming "the saved cursor"), and a field label
// holding the key (upper-cased) was kept in the state's runs[].extra.members and printed by
// `export state show`. A cursor that holds the key is now handed out sealed (src/http/cursor-seal.ts).
const SECRET = 'Q7mZ2xK9pL4vN8rT3wY6bC1dF5gH0jS2';
const KEY = `sk_live_canary_${SECRET}`;
const LABEL = `Token ${SECRET.toUpperCase()}`;
const CURSORS = [`p2.${KEY}`, `p3.${KEY}`];

/** The runs of 8 characters of the secret (any case) a text holds. */
function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  const plain = SECRET.toLowerCase();
  const found: string[] = [];
  for (let i = 0; i + 8 <= plain.length; i++)
    if (lower.includes(plain.slice(i, i + 8))) found.push(plain.slice(i, i + 8));
  return found;
}

let server: HostileServer;
/** Every cursor the server was sent, as it came. */
const received: string[] = [];
const reply = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  server = await hostileServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/v2/fields')
      return reply(res, 200, { data: { fields: [] }, pagination: { nextCursor: null } });
    if (url.pathname === '/v2/campaigns') {
      const cursor = url.searchParams.get('cursor');
      if (cursor !== null) received.push(cursor);
      if (cursor !== null && cursor !== CURSORS[0])
        return reply(res, 400, { error: { code: 'invalid_cursor', message: 'bad' } });
      return reply(res, 200, {
        data: { campaigns: [{ id: cursor ? 'k2' : 'k1', name: 'n' }] },
        pagination: { nextCursor: cursor ? null : CURSORS[0] },
      });
    }
    if (url.pathname === '/v2/exports/contacts') {
      const cursor = (JSON.parse(body || '{}') as { cursor?: string }).cursor;
      if (cursor !== undefined) received.push(cursor);
      const at = cursor === undefined ? 0 : CURSORS.indexOf(cursor) + 1;
      if (at === 0 && cursor !== undefined)
        return reply(res, 400, { error: { code: 'invalid_cursor', message: 'the cursor is not one of ours' } });
      const rows = at < 2 ? [{ id: `c${at}`, email: `a${at}@example.com`, fields: { [LABEL]: 'x' } }] : [];
      return reply(res, 200, { data: { contacts: rows }, pagination: { nextCursor: CURSORS[at] ?? null } });
    }
    return reply(res, 404, { error: { code: 'not_found', message: 'no such route' } });
  });
});
afterAll(() => server.close());

describe('a server that echoes the key into a cursor and a field label (binary)', () => {
  it('the cursor goes back as it came, page after page and run after run; nothing printed or stored holds the key', async () => {
    const { dir, env } = keyEchoRun(server.url, KEY);
    const out = join(dir, 'contacts.csv');
    const first = await cnv(['export', 'contacts', '--out', out, '--state-key', 'k'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(received).toEqual(CURSORS);
    expect(readFileSync(out, 'utf8').split('\r\n').filter(Boolean)).toHaveLength(3);
    const second = await cnv(['export', 'contacts', '--out', out, '--state-key', 'k'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(received).toEqual([...CURSORS, CURSORS[1]]);

    const show = await cnv(['export', 'state', 'show', 'k'], { env });
    const json = await cnv(['export', 'state', 'show', 'k', '--json'], { env });
    expect(show.exitCode).toBe(0);
    const runs = (JSON.parse(json.stdout) as { runs: Array<{ extra?: { members: string[] } }> }).runs;
    expect(runs[0].extra?.members).toEqual([expect.stringMatching(/^fields\.Token \*\*\*\*/)]);

    received.length = 0;
    const api = await cnv(['api', 'GET', '/v2/campaigns', '--paginate'], { env });
    expect(api.exitCode, api.stderr).toBe(0);
    expect(received).toEqual([CURSORS[0]]);
    expect(api.stdout.trim().split('\n')).toHaveLength(2);

    const printed = [first, second, show, json, api].map((r) => `${r.stdout}\n${r.stderr}`);
    for (const [i, text] of printed.entries()) expect(leaks(text), `run ${i}: ${text.slice(0, 400)}`).toEqual([]);
    const state = storedFiles(dir).filter((f) => f !== 'people.csv' && f !== 'contacts.csv');
    expect(state.length).toBeGreaterThan(0);
    for (const f of state) expect(leaks(readFileSync(join(dir, f), 'utf8')), f).toEqual([]);
  });
});
