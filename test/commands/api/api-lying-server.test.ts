import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';

// `cnv api` against a server that lies (undici's MockAgent): it must stop, not loop or print a
// foreign page as data, and never show the key.
const BASE = 'https://api.test';
const KEY = 'sk_live_mock_0123456789abcdef';
let agent: MockAgent;
let env: Record<string, string>;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  env = { CNV_BASE_URL: BASE, CNV_API_KEY: KEY, CNV_CONFIG_DIR: tempConfigDir() };
});
afterEach(() => agent.close());

const run = (args: string[]) => cnvInProcess(['api', ...args], { env, dispatcher: agent });
const page = (items: unknown[], nextCursor: string | null) => ({ data: { things: items }, pagination: { nextCursor } });

describe('cnv api against a lying server (in-process)', () => {
  it('--paginate stops with exit 3 when a cursor comes back a second time, after printing what came', async () => {
    const pool = agent.get(BASE);
    pool.intercept({ path: '/v2/things', method: 'GET' }).reply(200, page([{ n: 1 }], 'A'));
    pool.intercept({ path: '/v2/things?cursor=A', method: 'GET' }).reply(200, page([{ n: 2 }], 'B'));
    pool.intercept({ path: '/v2/things?cursor=B', method: 'GET' }).reply(200, page([{ n: 3 }], 'A'));
    const res = await run(['GET', 'things', '--paginate']);
    expect(res.exitCode).toBe(3);
    expect(res.stdout).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(res.stderr).toMatch(/^error: invalid_response: .*nextCursor repeats an earlier one/m);
  });

  it('a 200 HTML page is not printed as data: not_the_api, exit 3', async () => {
    agent
      .get(BASE)
      .intercept({ path: '/v2/things', method: 'GET' })
      .reply(200, '<html>login</html>', { headers: { 'content-type': 'text/html' } });
    const res = await run(['GET', '/v2/things']);
    expect(res.exitCode).toBe(3);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/not_the_api/);
  });

  it('--include on a terminal shows a hostile error page escaped, with the key masked', async () => {
    agent
      .get(BASE)
      .intercept({ path: '/v2/things', method: 'GET' })
      .reply(502, `<h1>\x1b]0;pwned\x07 ${KEY}</h1>`, { headers: { 'content-type': 'text/html' } });
    const res = await cnvInProcess(['api', 'GET', 'things', '--include', '--max-retries', '0'], {
      env,
      dispatcher: agent,
      stdoutIsTTY: true,
    });
    expect(res.exitCode).toBe(7);
    expect(res.stdout).toMatch(/^HTTP 502 Bad Gateway\n/);
    expect(res.stdout).toContain('\\x1b]0;pwned\\x07');
    expect(res.stdout).not.toMatch(/\x1b/);
    expect(res.stdout).not.toContain(KEY);
  });

  it('the key echoed in a body or a header is masked in what --include prints', async () => {
    agent
      .get(BASE)
      .intercept({ path: '/v2/echo', method: 'GET' })
      .reply(200, { data: { youSent: KEY } }, { headers: { 'x-echo': KEY } });
    const res = await run(['GET', 'echo', '--include']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toMatch(/^x-echo: sk_live_mock_\*\*\*\*$/m);
    expect(res.stdout).not.toContain(KEY);
  });
});
