import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnv } from '../helpers/cli.js';
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
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], { env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '' } });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).email).toBe('ada@example.com');
    expect(tunnels.slice(before)).toContain(new URL(fx.emulator.url).host);
  });

  it('goes through the proxy with CNV_RUNTIME_TUNING=off too (the undici wiring it needs is not tuning)', async () => {
    const before = tunnels.length;
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], { env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '', CNV_RUNTIME_TUNING: 'off' } });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(tunnels.slice(before)).toContain(new URL(fx.emulator.url).host);
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const before = tunnels.length;
    const res = await cnv(['contacts', 'get', '--email', 'ada@example.com'], { env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect(res.exitCode).toBe(0);
    expect(tunnels.length).toBe(before);
  });
});
