import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { hostileServer, type HostileServer } from '../helpers/hostile-server.js';

// A server that hands out a new 4 MB cursor with every page. A run that kept every cursor it
// followed (to tell a cycle) held them all: with a 160 MB heap, 48 pages (192 MB of cursors)
// ran out of memory. It keeps their digests now.

const PAGES = 48;
const CURSOR = 4 * 1024 * 1024;
const cursorOf = (page: number) => `${page}:`.padEnd(CURSOR, 'x');

let server: HostileServer;
beforeAll(async () => {
  server = await hostileServer((req, res, body) => {
    const cursor = (JSON.parse(body || '{}') as { cursor?: string }).cursor;
    const page = cursor ? Number(cursor.slice(0, cursor.indexOf(':'))) + 1 : 0;
    const next = page + 1 < PAGES ? JSON.stringify(cursorOf(page)) : 'null';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      `{"data":{"contacts":[{"id":"r${page}","email":"r${page}@example.com"}]},"pagination":{"nextCursor":${next}}}`,
    );
  });
});
afterAll(() => server.close());

describe('4 MB cursors on every page (binary, heap capped at 160 MB)', () => {
  const env = () => ({
    CNV_BASE_URL: server.url,
    CNV_API_KEY: 'sk_live_cursor_0123456789abcdef',
    CNV_CONFIG_DIR: tempConfigDir(),
    CNV_RATE_SHARE: 'off',
    CNV_HEAP_HOLD: 'off',
    NODE_OPTIONS: '--max-old-space-size=160',
  });

  it('cnv api --paginate follows all of them', { timeout: 150_000 }, async () => {
    const res = await cnv(['api', 'POST', '/v2/exports/contacts', '--paginate', '-o', 'ndjson'], {
      env: env(),
      timeoutMs: 120_000,
    });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(PAGES);
  });

  // About 30 s on this 2-core machine (48 pages of 8 MB each way under a 160 MB heap): the
  // property is memory, so the test waits as long as the run may take (timeoutMs), not vitest's 30 s.
  it('an export follows all of them', { timeout: 150_000 }, async () => {
    const res = await cnv(['export', 'contacts', '--no-state'], { env: env(), timeoutMs: 120_000 });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(PAGES);
  });
});
