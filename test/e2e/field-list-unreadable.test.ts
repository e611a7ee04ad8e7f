import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { badProxy } from '../helpers/bad-proxy.js';
import { hostileServer, type HostileServer } from '../helpers/hostile-server.js';

// Issue 38: the field list unreadable (connection refused, a proxy or gateway answering with an
// error, a stall) made `contacts sync` and `contacts upsert --file` with a label or key column
// exit 2 unknown_column, the cause only in a warning, and sync left an empty export state behind
// (the next run noted "no record of its checksum"). Now: exit 7, the cause in the error line,
// and nothing left for the next run to misread.
const fx = useEmulator();
const { write } = batchFiles('cnv-field-list-');
let server: HostileServer;
let proxy: Awaited<ReturnType<typeof badProxy>>;
let status = 503;
beforeAll(async () => {
  proxy = await badProxy('auth-required');
  server = await hostileServer((_req, res) => {
    if (status === 0) return; // a stall: never answered
    res.writeHead(status, { 'content-type': 'text/html' }).end('<html>not now</html>');
  });
});
afterAll(async () => {
  await server.close();
  await proxy.close();
});

const LABEL_FILE = () => write('label.csv', 'email,First name\nunreadable@example.com,Ada\n');
const KEY_FILE = () => write('key.csv', 'email,firstName\nunreadable@example.com,Ada\n');

/** How the field list cannot be read: the env of the run, and how the hostile server answers. */
const WAYS: Array<[string, () => Record<string, string>, number]> = [
  ['connection refused', () => ({ CNV_BASE_URL: 'http://127.0.0.1:9' }), 0],
  ['a gateway answering 503', () => ({ CNV_BASE_URL: server.url }), 503],
  ['a proxy answering 407', () => ({ HTTP_PROXY: proxy.url, NO_PROXY: '' }), 0],
  ['a stall', () => ({ CNV_BASE_URL: server.url }), 0],
];

describe('the field list unreadable is exit 7 with its cause, and leaves nothing behind (binary)', () => {
  for (const [way, how, answer] of WAYS) {
    for (const [command, file] of [
      ['contacts sync', LABEL_FILE],
      ['contacts upsert --file', KEY_FILE],
    ] as const) {
      it(`${command}, ${way}`, async () => {
        status = answer;
        const configDir = tempConfigDir();
        const args = [...command.split(' '), ...(command === 'contacts sync' ? ['--file'] : []), file()];
        const env = { ...fx.env, CNV_CONFIG_DIR: configDir, CNV_RATE_SHARE: 'off', ...how() };
        const res = await cnv([...args, '--max-retries', '1', '--timeout', '2000'], { env, timeoutMs: 30_000 });
        expect(res.stderr).toMatch(
          /^error: [a-z0-9_]+: cannot read the field definitions, needed to match the columns of the file to fields: .+/m,
        );
        expect(res.stderr).not.toContain('unknown_column');
        expect(res.exitCode, res.stderr).toBe(7);
        const exports = join(configDir, 'exports');
        expect(existsSync(exports) ? readdirSync(exports).filter((n) => n.endsWith('.json')) : []).toEqual([]);
        if (command === 'contacts sync') {
          // The next run, against the API: a first full refresh, with no note of a damaged snapshot.
          const next = await cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: configDir, CNV_RATE_SHARE: 'off' } });
          expect(next.exitCode, next.stderr).toBe(0);
          expect(next.stderr).not.toMatch(/no record of its checksum|rebuilding/);
        }
      });
    }
  }
});
