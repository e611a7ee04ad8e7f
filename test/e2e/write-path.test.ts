import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { hostileServer } from '../helpers/hostile-server.js';

// Issue 29: nothing guessed on the write path. Each case runs the built binary against the
// emulator, as a user meets it.

const fx = useEmulator({}, { faults: true, stats: true });
const { write, reportPath, readReport } = batchFiles('cnv-write-path-');

const run = (args: string[], env: Record<string, string> = {}) => cnv(args, { env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir(), ...env } });
const contact = async (email: string) => ((await fx.admin('GET', `/_emulator/state/contacts?email=${encodeURIComponent(email)}`)) as Array<Record<string, any>>)[0];
const upserts = async () => ((await fx.stats()).byRoute['POST /v2/contacts'] as number | undefined) ?? 0;

describe('a key named twice in one JSON object', () => {
  it('is a malformed_row naming the key (top level and inside fields), never sent; the other rows are', async () => {
    const path = write('twice.ndjson', [
      '{"email":"twice.a@example.com","email":"twice.b@example.com"}',
      '{"email":"twice.c@example.com","fields":{"city":"Oslo","city":"Bergen"}}',
      '{"email":"twice.d@example.com","fields":{"city":"Oslo"}}',
    ].join('\n'));
    const report = reportPath();
    const res = await run(['contacts', 'upsert', '--file', path, '--report', report]);
    expect(res.exitCode, res.stderr).toBe(6);
    const rows = readReport(report);
    expect(rows.map((r) => [r.line, r.status, r.error, r.message])).toEqual([
      ['1', 'invalid', 'malformed_row', 'the key "email" appears twice in one object: keep one'],
      ['2', 'invalid', 'malformed_row', 'the key "fields.city" appears twice in one object: keep one'],
      ['3', 'created', '', ''],
    ]);
    expect(await upserts()).toBe(1);
    expect(await contact('twice.b@example.com')).toBeUndefined();
    expect(await contact('twice.c@example.com')).toBeUndefined();
  });

  it('in a CSV cell holding a JSON object, too', async () => {
    const path = write('twice.csv', 'email,fields\ntwice.e@example.com,"{""city"":""Oslo"",""city"":""Bergen""}"\n');
    const report = reportPath();
    const res = await run(['contacts', 'upsert', '--file', path, '--report', report]);
    expect(res.exitCode, res.stderr).toBe(6);
    expect(readReport(report)[0]).toMatchObject({ status: 'invalid', error: 'malformed_row', message: '"fields": the key "city" appears twice in one object: keep one' });
    expect(await upserts()).toBe(0);
  });
});

describe('the key echoed back base64-encoded', () => {
  it('is masked on stderr, in --debug and in the report\'s message column: whole key and secret part', async () => {
    const KEY = 'sk_live_echo_Q2FuYXJ5U2VjcmV0VmFsdWUxMjM0NTY';
    const SECRET = KEY.slice('sk_live_echo_'.length);
    const echoes = [Buffer.from(KEY).toString('base64'), Buffer.from(SECRET).toString('base64url'), Buffer.from(`Basic ${KEY}:`).toString('base64')];
    const server = await hostileServer((req, res) => {
      const message = `key ${echoes.join(' / ')} refused`;
      const body = req.url?.endsWith('/contacts/batch')
        ? `{"data":{"results":[{"added":false,"error":"invalid_request","message":"${message}"}]}}`
        : `{"error":{"code":"invalid_field","message":"${message}"}}`;
      res.writeHead(req.url?.endsWith('/contacts/batch') ? 200 : 400, { 'content-type': 'application/json' }).end(body);
    });
    try {
      const env = { CNV_BASE_URL: server.url, CNV_API_KEY: KEY, CNV_RATE_SHARE: 'off' };
      const report = reportPath();
      const runs = [
        await run(['contacts', 'upsert', '--email', 'a@example.com', '--debug'], env),
        await run(['audience', 'add', 'c1000000-0000-4000-8000-000000000002', '--batch', write('one.csv', 'email\na@example.com\n'), '--report', report, '--debug'], env),
      ];
      const seen = [...runs.map((r) => r.stdout + r.stderr), readFileSync(report, 'utf8')];
      for (const text of seen) {
        expect(text).toMatch(/key \*\*\*\* \/ \*\*\*\* \/ [\w+/]*\*\*\*\*[\w+/=]* refused/);
        for (const echo of echoes) expect(text).not.toContain(echo.slice(8, 24));
      }
    } finally {
      await server.close();
    }
  });
});
