import { describe, expect, it } from 'vitest';
import { batchFiles } from '../../helpers/batch-files.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { MOCK_API, useFakeApi } from '../../helpers/fake-api.js';
import { csv } from '../../helpers/sync-runs.js';

// contacts sync's hints, in-process over a MockAgent: an error of the refresh keeps its own hint
// unless rebuilding the snapshot is the way on (--full-refresh is named only where a refresh
// helps), on the first run as on later ones. The input errors' hints are tried through the
// binary (test/e2e/sync-operator.test.ts).

const api = useFakeApi();
const { write } = batchFiles('cnv-sync-hints-');

const city = { key: 'city', label: 'City', objectType: 'CONTACT', dataType: 'STRING' };

/** GET /v2/fields answers the CONTACT field `city` (and no COMPANY field), as often as asked. */
function fields(): void {
  api.agent
    .get(MOCK_API)
    .intercept({ path: (p) => p.startsWith('/v2/fields?'), method: 'GET' })
    .reply(200, ({ path }) => ({
      data: { fields: path.includes('objectType=CONTACT') ? [city] : [] },
      pagination: { nextCursor: null },
    }))
    .persist();
}

describe('contacts sync: the hint of an error in the refresh', () => {
  it('the export rate limited for longer than --max-retry-wait: its own hint (a longer wait), not --full-refresh', async () => {
    fields();
    api.agent
      .get(MOCK_API)
      .intercept({ path: '/v2/exports/contacts', method: 'POST' })
      .reply(429, { error: { code: 'rate_limited', message: 'slow down' } }, { headers: { 'retry-after': '100' } })
      .persist();
    const res = await cnvInProcess(
      [
        'contacts',
        'sync',
        '--file',
        write('limited.csv', csv([['limited@example.com', 'Oslo']])),
        '--max-retry-wait',
        '1',
      ],
      { env: api.env, dispatcher: api.dispatcher },
    );
    expect(res.exitCode, res.stderr).toBe(7);
    expect(res.stderr).toMatch(/^error: rate_limited: /m);
    expect(res.stderr).toMatch(/^hint: try again after .*, or allow a longer wait with --max-retry-wait SECONDS/m);
    expect(res.stderr).not.toMatch(/--full-refresh/);
  });

  it("a cursor the server refuses in the middle of a full refresh: rebuilding the snapshot is the way on, said with --full-refresh (never the export's --full)", async () => {
    fields();
    const pages = api.agent.get(MOCK_API);
    const contact = { id: 'c-1', email: 'one@example.com', fields: {}, updatedAt: '2025-01-01T00:00:00Z' };
    pages
      .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === undefined })
      .reply(200, { data: { contacts: [contact] }, pagination: { nextCursor: 'c1' } });
    pages
      .intercept({ path: '/v2/exports/contacts', method: 'POST', body: (b) => JSON.parse(b).cursor === 'c1' })
      .reply(400, { error: { code: 'invalid_cursor', message: 'unknown cursor' } });
    const res = await cnvInProcess(
      ['contacts', 'sync', '--file', write('refused.csv', csv([['one@example.com', 'Oslo']]))],
      { env: api.env, dispatcher: api.dispatcher },
    );
    expect(res.exitCode, res.stderr).toBe(3);
    expect(res.stderr).toMatch(/^error: invalid_cursor: /m);
    expect(res.stderr).toMatch(
      /^hint: the snapshot is a cache of the account: run again with --full-refresh to rebuild it/m,
    );
    expect(res.stderr).not.toMatch(/--full(?!-refresh)/);
  });
});
