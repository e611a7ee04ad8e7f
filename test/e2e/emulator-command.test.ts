import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, cnvInProcess, tempConfigDir } from '../helpers/cli.js';

describe('cnv emulator (binary)', () => {
  it('serves on a free port, prints its URL and keys, and stops cleanly on SIGTERM', async () => {
    const child = execa('node', [BIN, 'emulator', '--port', '0', '--json'], { reject: false });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (c) => {
        buf += c;
        if (buf.includes('\n')) resolve(buf.split('\n')[0]);
      });
      child.on('exit', () => reject(new Error('emulator exited early')));
    });
    const { url, keys } = JSON.parse(line);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { CNV_BASE_URL: url, CNV_API_KEY: keys.full, CNV_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.exitCode).toBe(0);
    child.kill('SIGTERM');
    const done = await child;
    expect(done.exitCode).toBe(0);
  });

  it('human output names the base URL and the three keys', async () => {
    const child = execa('node', [BIN, 'emulator', '--port', '0'], { reject: false });
    const text = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout!.on('data', (c) => {
        buf += c;
        if (/CNV_API_KEY/.test(buf)) resolve(buf);
      });
    });
    child.kill('SIGINT');
    await child;
    expect(text).toMatch(/http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain('sk_live_demo_');
    expect(text).toContain('sk_live_basic_');
    expect(text).toContain('sk_live_limited_');
  });

  it('warns on stderr when it listens beyond loopback (its admin routes take no key)', async () => {
    const child = execa('node', [BIN, 'emulator', '--port', '0', '--host', '0.0.0.0', '--json'], { reject: false });
    const err = await new Promise<string>((resolve) => {
      let buf = '';
      child.stderr!.on('data', (c) => {
        buf += c;
        if (buf.includes('\n')) resolve(buf);
      });
    });
    child.kill('SIGTERM');
    await child;
    expect(err).toMatch(/^warning: listening on 0\.0\.0\.0: .*admin routes under \/_emulator, which take no key/);
  });

  it('a busy port is a usage error (exit 2) naming the port and --port 0, not a bug', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const res = await cnvInProcess(['emulator', '--port', String(port)]);
      expect(res.exitCode).toBe(2);
      expect(res.stderr).toBe(
        `error: port_in_use: port ${port} on 127.0.0.1 is already in use (EADDRINUSE)\n` +
          'hint: pick another with --port N, or --port 0 to take a free one (the URL is printed)\n',
      );
    } finally {
      blocker.close();
    }
  });
});
