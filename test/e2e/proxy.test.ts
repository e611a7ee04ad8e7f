import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badProxy, type ProxyBehaviour } from '../helpers/bad-proxy.js';
import { BIN, cleanEnv, cnv } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let proxy: Server;
let proxyUrl: string;
const tunnels: string[] = [];

beforeAll(async () => {
  fx = await emulatorFixture();
  // A minimal forward proxy: tunnels CONNECT requests and records their targets.
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await fx.close();
});

describe('HTTP(S)_PROXY and NO_PROXY (binary)', () => {
  it('sends requests through the proxy named by HTTP_PROXY', async () => {
    const before = tunnels.length;
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '' },
    });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).email).toBe('ada@example.com');
    expect(tunnels.slice(before)).toContain(new URL(fx.emulator.url).host);
  });

  it('goes through the proxy with CNV_RUNTIME_TUNING=off too (the undici wiring it needs is not tuning)', async () => {
    const before = tunnels.length;
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '', CNV_RUNTIME_TUNING: 'off' },
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(tunnels.slice(before)).toContain(new URL(fx.emulator.url).host);
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const before = tunnels.length;
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' },
    });
    expect(res.exitCode).toBe(0);
    expect(tunnels.length).toBe(before);
  });
});

describe('a proxy that misbehaves: every attempt bounded by --timeout, counted, ended by a signal; exit 7 naming the proxy (binary)', () => {
  const get = ['contacts', 'get', '--email', 'ada@example.com'];
  const through = (proxy: string, args: string[], timeoutMs = 30_000) =>
    cnv([...get, ...args], { env: { ...fx.env, HTTP_PROXY: proxy, NO_PROXY: '' }, timeoutMs });
  const using = async <T>(
    behaviour: ProxyBehaviour,
    test: (proxy: Awaited<ReturnType<typeof badProxy>>) => Promise<T>,
  ) => {
    const proxy = await badProxy(behaviour);
    try {
      return await test(proxy);
    } finally {
      await proxy.close();
    }
  };

  it('CONNECT answered 200 with a body, then closed: one CONNECT per attempt (3 with --max-retries 2), exit 7 proxy_error (before: CONNECTs by the ten thousand, at full CPU, for ever)', async () => {
    await using('body-then-close', async (proxy) => {
      const res = await through(proxy.url, ['--max-retries', '2', '--timeout', '3000']);
      expect(res.stderr).toContain(
        `error: proxy_error: GET /v2/contacts failed: the proxy ${proxy.url} answered CONNECT ${new URL(fx.emulator.url).host} with 200 and a body, not an open tunnel (after 3 attempts)`,
      );
      expect(res.stderr).toMatch(/^hint: check the proxy cnv was given \(HTTPS_PROXY or HTTP_PROXY/m);
      expect(res.exitCode).toBe(7);
      expect(proxy.connects()).toBe(3);
    });
  });

  it('a proxy that never answers: the attempt ends at --timeout (before: ~300 s), exit 7 naming the proxy', async () => {
    await using('silent', async (proxy) => {
      const res = await through(proxy.url, ['--max-retries', '1', '--timeout', '1000'], 20_000);
      expect(res.stderr).toContain(
        `error: proxy_error: GET /v2/contacts failed: the proxy ${proxy.url} did not answer CONNECT ${new URL(fx.emulator.url).host} within 1 s (--timeout) (after 2 attempts)`,
      );
      expect(res.exitCode).toBe(7);
    });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'a proxy that never answers: the first %s ends the run, exit %i (before: honoured only after ~300 s)',
    async (signal, code) => {
      await using('silent', async (proxy) => {
        const child = execa('node', [BIN, ...get, '--timeout', '600000'], {
          env: cleanEnv({ ...fx.env, HTTP_PROXY: proxy.url, NO_PROXY: '' }),
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
          timeout: 20_000,
        });
        await proxy.connected();
        child.kill(signal);
        const res = await child;
        expect(res.timedOut).toBe(false);
        expect(String(res.stderr)).toContain(`error: interrupted: interrupted by ${signal}`);
        expect(res.exitCode).toBe(code);
      });
    },
  );

  it('CONNECT answered 200 with a body, with CNV_RUNTIME_TUNING=off: the same one CONNECT per attempt and exit 7', async () => {
    await using('body-then-close', async (proxy) => {
      const res = await cnv([...get, '--max-retries', '1', '--timeout', '3000'], {
        env: { ...fx.env, HTTP_PROXY: proxy.url, NO_PROXY: '', CNV_RUNTIME_TUNING: 'off' },
        timeoutMs: 30_000,
      });
      expect(res.stderr).toContain('error: proxy_error: GET /v2/contacts failed: the proxy');
      expect(res.exitCode).toBe(7);
      expect(proxy.connects()).toBe(2);
    });
  });

  it('a proxy that refuses the tunnel (502): exit 7 naming it, never its user and password', async () => {
    await using('bad-gateway', async (proxy) => {
      const res = await through(proxy.urlWithCredentials('proxyuser', 'pr0xy-s3cret'), ['--max-retries', '0']);
      expect(res.stderr).toContain(
        `error: proxy_error: GET /v2/contacts failed: the proxy ${proxy.url} answered CONNECT ${new URL(fx.emulator.url).host} with 502`,
      );
      expect(res.stderr).not.toMatch(/proxyuser|pr0xy-s3cret/);
      expect(res.exitCode).toBe(7);
    });
  });

  it('a proxy that is not there: exit 7 naming it', async () => {
    const gone = await badProxy('silent');
    await gone.close();
    const res = await through(gone.url, ['--max-retries', '0']);
    expect(res.stderr).toContain(
      `error: proxy_error: GET /v2/contacts failed: cannot reach the proxy ${gone.url} to open a tunnel to`,
    );
    expect(res.exitCode).toBe(7);
  });
});
