import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTH_PATH, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { requestLine } from '../../src/emulator/server.js';
import { admin, call } from './helpers.js';

let emu: Emulator;
const lines: string[] = [];
beforeAll(async () => {
  emu = await startEmulator({ port: 0, verbose: true, log: (line) => lines.push(line) });
});
afterAll(async () => {
  await emu.close();
});

/** A raw GET with a chosen Host header (fetch cannot set one). */
function getWithHost(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /_emulator/health', () => {
  it('answers {"ok":true} with no key, uncounted, whatever the Host (a container probe uses a service name)', async () => {
    const before = (await admin(emu, 'GET', '/_emulator/stats')).json.total;
    const res = await call(emu, 'GET', HEALTH_PATH, { key: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(await getWithHost(HEALTH_PATH, 'cnv-emulator:4010')).toEqual({ status: 200, body: '{"ok":true}' });
    // The other admin routes keep their guard.
    expect((await getWithHost('/_emulator/info', 'cnv-emulator:4010')).status).toBe(403);
    expect((await admin(emu, 'GET', '/_emulator/stats')).json.total).toBe(before);
  });

  it('is GET only', async () => {
    expect((await admin(emu, 'POST', HEALTH_PATH)).status).toBe(405);
  });
});

describe('verbose log', () => {
  it('one line per request: method, path with query, status, time', async () => {
    lines.length = 0;
    await call(emu, 'GET', '/v2/contacts?email=ada%40example.com');
    await call(emu, 'GET', '/v2/contacts?email=nobody%40example.com');
    await call(emu, 'GET', '/v2/campaigns', { key: 'sk_live_nope_0000' });
    await call(emu, 'GET', HEALTH_PATH, { key: null });
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^emulator: GET \/v2\/contacts\?email=ada%40example\.com 200 \d+\.\dms$/);
    expect(lines[1]).toMatch(/^emulator: GET \/v2\/contacts\?email=nobody%40example\.com 404 \d+\.\dms$/);
    expect(lines[2]).toMatch(/^emulator: GET \/v2\/campaigns 401 \d+\.\dms$/);
    expect(lines[3]).toMatch(/^emulator: GET \/_emulator\/health 200 \d+\.\dms$/);
    expect(lines.join('\n')).not.toContain('sk_live');
  });

  it('a dropped connection is logged as dropped', async () => {
    await admin(emu, 'POST', '/_emulator/faults', { dropBeforeNext: 1 });
    lines.length = 0;
    await expect(call(emu, 'GET', '/v2/campaigns')).rejects.toThrow();
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatch(/^emulator: GET \/v2\/campaigns dropped \d+\.\dms$/);
  });

  it('control characters in what the client sent are shown escaped (Node refuses most; the line never relies on it)', () => {
    const line = requestLine({ method: 'GET', url: '/v2/x\x1b]0;pwned\x07\u202e\r\n' }, 404, 1.23);
    expect(line).toBe('emulator: GET /v2/x\\x1b]0;pwned\\x07\\u202e\\r\\n 404 1.2ms');
  });
});
