import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let echo: Server;
let echoUrl: string;
beforeAll(async () => {
  fx = await emulatorFixture();
  // A server that echoes the key it was sent everywhere it can: in headers, and all through a
  // 12 KiB error body, so that the debug log's cuts fall inside a key, whatever the offsets.
  echo = createServer((req, res) => {
    const key = String(req.headers['x-api-key'] ?? '');
    const message = '\x1b[31mred\x1b[0m ' + `${key} `.repeat(Math.ceil(12_000 / (key.length + 1)));
    const body = JSON.stringify({ error: { code: 'echoed', message } });
    res.writeHead(400, { 'content-type': 'application/json', 'set-cookie': `session=${key}`, 'x-echo': key });
    res.end(body);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fx.close();
  await new Promise((resolve) => echo.close(resolve));
});

const secretOf = (key: string) => key.split('_').slice(3).join('_');

describe('--debug', () => {
  it('shows host, request and response headers and bodies, status, time and attempt; stdout stays the data', async () => {
    const plain = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'debug.one@example.com', '--field', 'city=Oslo'],
      { env: fx.env },
    );
    const res = await cnvInProcess(
      ['contacts', 'upsert', '--email', 'debug.one@example.com', '--field', 'city=Oslo', '--debug'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ ...JSON.parse(plain.stdout), contactCreated: false });
    const host = new URL(fx.emulator.url).host;
    const err = res.stderr;
    expect(err).toMatch(new RegExp(`^\\* \\S+Z POST http://${host}/v2/contacts \\(attempt 1\\)$`, 'm'));
    expect(err).toContain(
      `\n> POST /v2/contacts\n> host: ${host}\n> x-api-key: sk_live_demo_****\n> content-type: application/json\n`,
    );
    expect(err).toContain('\n>\n> {"email":"debug.one@example.com","fields":{"city":"Oslo"}}\n');
    expect(err).toMatch(/^< 200 POST \/v2\/contacts \(attempt 1, \d+ ms\)$/m);
    expect(err).toMatch(/^< content-type: application\/json$/m);
    expect(err).toMatch(/^< \{"data":\{"cnvContactId":"[0-9a-f-]{36}","contactCreated":false\}\}$/m);
    expect(err).not.toContain(secretOf(fx.emulator.keys.full));
  });

  it('CNV_DEBUG=api is --debug; CNV_DEBUG=1 is --verbose', async () => {
    const api = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, CNV_DEBUG: 'api' },
    });
    expect(api.exitCode).toBe(0);
    expect(api.stderr).toMatch(/^< \{"data":\{"contact":\{"cnvContactId":"a0000000-0000-4000-8000-000000000001"/m);
    const one = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, CNV_DEBUG: '1' },
    });
    expect(one.stderr).toMatch(
      /^> GET \/v2\/contacts\?email=ada%40example\.com attempt=1\n< 200 GET \/v2\/contacts attempt=1 \d+ms\n$/,
    );
    const off = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, CNV_DEBUG: '0' },
    });
    expect(off.stderr).toBe('');
  });

  it('numbers the attempts and shows the retry between them', async () => {
    await fx.faults({ failNext: 1 });
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com', '--debug'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toMatch(/^< 500 GET \/v2\/contacts \(attempt 1, \d+ ms\)$/m);
    expect(res.stderr).toMatch(/^< \{"error":\{"code":"internal_error"/m);
    expect(res.stderr).toMatch(/^\* retry GET \/v2\/contacts after attempt 1 \(500\) in \d+ ms$/m);
    expect(res.stderr).toMatch(/^\* \S+ GET http:\/\/\S+\/v2\/contacts\?email=ada%40example\.com \(attempt 2\)$/m);
    expect(res.stderr).toMatch(/^< 200 GET \/v2\/contacts \(attempt 2, \d+ ms\)$/m);
  });

  it('cuts a body at 4 KiB and says how large it was', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '40', '--debug'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const size = Number(/^< content-length: (\d+)$/m.exec(res.stderr)![1]);
    expect(size).toBeGreaterThan(8192);
    expect(res.stderr).toContain(`\n< [body cut: ${size} bytes in all, at most the first 4 KiB shown]\n`);
    const bodyLine = res.stderr.split('\n').find((l) => l.startsWith('< {"data":'))!;
    expect(bodyLine.length).toBe(2 + 4096);
    expect(JSON.parse(res.stdout)).toHaveLength(40); // the data itself is whole
  });

  it('an export streamed through the debug capture writes the same file', async () => {
    const dir = tempConfigDir();
    const plain = await cnvInProcess(['export', 'contacts', '--out', join(dir, 'plain.ndjson'), '--limit', '500'], {
      env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() },
    });
    const debug = await cnvInProcess(
      ['export', 'contacts', '--out', join(dir, 'debug.ndjson'), '--limit', '500', '--debug'],
      { env: { ...fx.env, CNV_CONFIG_DIR: tempConfigDir() } },
    );
    expect([plain.exitCode, debug.exitCode], debug.stderr.slice(-500)).toEqual([0, 0]);
    const written = readFileSync(join(dir, 'debug.ndjson'), 'utf8');
    expect(written.split('\n').length).toBeGreaterThan(500);
    expect(written).toBe(readFileSync(join(dir, 'plain.ndjson'), 'utf8'));
    expect(debug.stderr).toMatch(/^< 200 POST \/v2\/exports\/contacts \(attempt 1, \d+ ms\)$/m);
    expect(debug.stderr).toMatch(/^< \{"data":\{"contacts":\[/m);
  });

  it('never shows the key: not in headers, not in an echoed body, not cut in half at 4 KiB (canary keys)', async () => {
    const canary = 'sk_live_canary_CANARYSECRET0123456789';
    const odd = 'CANARY-odd-shaped-SECRET-9876';
    const dir = tempConfigDir();
    const runs = [
      await cnvInProcess(['contacts', 'get', '--email', 'a@example.com', '--debug', '--max-retries', '0'], {
        env: { CNV_CONFIG_DIR: dir, CNV_BASE_URL: echoUrl, CNV_API_KEY: canary },
      }),
      await cnvInProcess(
        ['contacts', 'get', '--email', 'a@example.com', '--debug', '--max-retries', '0', '--api-key', odd],
        { env: { CNV_CONFIG_DIR: dir, CNV_BASE_URL: echoUrl } },
      ),
      await cnvInProcess(
        ['events', 'track', '--event', 'e', '--email', 'a@example.com', '--data', `{"note":"${canary}"}`],
        {
          env: { CNV_CONFIG_DIR: dir, CNV_BASE_URL: echoUrl, CNV_API_KEY: canary, CNV_DEBUG: 'api' },
        },
      ),
    ];
    // Without --debug too: the error line's message is cut at 1,000 characters, inside a key.
    const plain = await cnvInProcess(
      ['contacts', 'get', '--email', 'a@example.com', '--max-retries', '0', '--api-key', odd],
      { env: { CNV_CONFIG_DIR: dir, CNV_BASE_URL: echoUrl } },
    );
    expect(plain.stderr).toMatch(/^error: echoed: \\x1b\[31mred\\x1b\[0m (\*\*\*\* )+/m);
    for (const run of runs) {
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/^< 400 (GET|POST) \/v2\/(contacts|events) \(attempt 1, \d+ ms\)$/m);
      expect(run.stderr).toContain('\n< set-cookie: ****\n');
      expect(run.stderr).toMatch(/\n< \[body cut: \d+ bytes in all, at most the first 4 KiB shown\]\n/);
      // What the server sent cannot act on the terminal.
      expect(run.stderr).toContain('\\x1b[31mred\\x1b[0m');
      expect(run.stderr).not.toContain('\x1b');
    }
    expect(runs[0].stderr).toContain('\n> x-api-key: sk_live_canary_****\n');
    expect(runs[0].stderr).toContain('\n< x-echo: sk_live_canary_****\n');
    expect(runs[1].stderr).toContain('\n> x-api-key: ****\n');
    expect(runs[2].stderr).toMatch(
      /^> \{"event":"e","email":"a@example\.com","clientEventId":"[0-9a-f-]{36}","data":\{"note":"sk_live_canary_\*\*\*\*"\}\}$/m,
    );
    const everything = [...runs, plain].map((r) => r.stdout + r.stderr).join('\n');
    // No piece of either secret, whole or cut (the echoed body is full of keys around the 4 KiB cut).
    for (const piece of ['CANARYS', 'RET0123', '6789', 'CANARY-', 'odd-shaped', 'SECRET-9876'])
      expect(everything).not.toContain(piece);
  });
});
