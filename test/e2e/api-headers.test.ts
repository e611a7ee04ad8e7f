import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cnv } from '../helpers/cli.js';

// What cnv sends, as a server sees it (the binary, so the version and runtime are the launcher's):
// `cnv api` headers (-H), the method (-X), --silent, and the User-Agent of every request.

const KEY = 'sk_live_headertest_0123456789abcdef';
let server: Server;
let url: string;
let seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const at = '2025-01-01T00:00:00.000Z';
      res.end(
        JSON.stringify({
          data: {
            contact: {
              cnvContactId: 'c1',
              email: 'ada@example.com',
              subscriptionStatus: 'SUBSCRIBED',
              fields: {},
              createdAt: at,
              updatedAt: at,
            },
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
});

const env = () => ({ CNV_BASE_URL: url, CNV_API_KEY: KEY, CNV_RATE_SHARE: 'off' });

describe('what cnv sends', () => {
  it("every request names cnv's version, Node.js's and the platform in its User-Agent", async () => {
    const version = JSON.parse((await cnv(['version', '--json'])).stdout) as {
      version: string;
      node: string;
      platform: string;
    };
    for (const args of [
      ['contacts', 'get', '--email', 'ada@example.com'],
      ['api', '/v2/contacts', '-f', 'email=ada@example.com'],
    ]) {
      const res = await cnv(args, { env: env() });
      expect(res.exitCode, res.stderr).toBe(0);
    }
    expect(seen.map((r) => r.headers['user-agent'])).toEqual(
      Array(2).fill(`cnv/${version.version} node/${version.node} (${version.platform})`),
    );
    expect(version.node).toBe(process.versions.node);
  });

  it('cnv api -H adds headers (repeatable); X-API-Key stays the key in force and is refused as a -H', async () => {
    const res = await cnv(
      ['api', 'contacts', '-f', 'email=ada@example.com', '-H', 'Accept-Language: de', '-H', 'X-Trace-Id:  abc 1 '],
      { env: env() },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].headers).toMatchObject({ 'accept-language': 'de', 'x-trace-id': 'abc 1', 'x-api-key': KEY });
    const other = 'sk_live_someoneelse_fedcba9876543210';
    const refused = await cnv(['api', 'contacts', '-H', `X-API-Key: ${other}`], { env: env() });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: invalid_value: --header: X-API-Key is cnv's: the key in force \(--api-key, CNV_API_KEY or the profile's\) is sent, never a header's$/m,
    );
    expect(refused.stderr).not.toContain(other);
    // The transport's own headers, what is not a header, and one header given twice.
    for (const bad of [
      ['-H', 'Host: evil.example.com'],
      ['-H', 'no colon'],
      ['-H', 'Bad Name: x'],
      ['-H', 'Accept: a', '-H', 'accept: b'],
    ]) {
      expect((await cnv(['api', 'contacts', ...bad], { env: env() })).exitCode, bad.join(' ')).toBe(2);
    }
    expect(seen).toHaveLength(1);
  });

  it("-X is --method's short form (any case); the method argument may be left out (GET); the two must agree", async () => {
    expect(
      (await cnv(['api', '/v2/contacts', '-X', 'post', '-f', 'email=ada@example.com'], { env: env() })).exitCode,
    ).toBe(0);
    expect(
      (await cnv(['api', 'contacts', '--method', 'DELETE', '-f', 'email=ada@example.com'], { env: env() })).exitCode,
    ).toBe(0);
    expect((await cnv(['api', 'contacts', '-f', 'email=ada@example.com'], { env: env() })).exitCode).toBe(0);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'DELETE', 'GET']);
    const both = await cnv(['api', 'GET', '/v2/contacts', '-X', 'POST'], { env: env() });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/the method is given twice: GET and -X POST/);
    expect((await cnv(['api', '-X', 'PUSH', 'contacts'], { env: env() })).exitCode).toBe(2);
    expect(seen).toHaveLength(3);
  });

  it('--silent prints no body (--include still the head); -q and --json with it are refused; full URLs to other hosts still are', async () => {
    const silent = await cnv(['api', 'contacts', '-f', 'email=ada@example.com', '--silent'], { env: env() });
    expect([silent.exitCode, silent.stdout, silent.stderr]).toEqual([0, '', '']);
    const head = await cnv(['api', 'contacts', '--silent', '--include'], { env: env() });
    expect(head.stdout).toMatch(/^HTTP 200 OK\n(.+\n)+\n$/);
    expect(head.stdout).not.toContain('cnvContactId');
    for (const flag of [['-q', 'data'], ['--json']]) {
      const res = await cnv(['api', 'contacts', '--silent', ...flag], { env: env() });
      expect(res.exitCode).toBe(2);
      expect(res.stderr).toMatch(/--silent prints no body for (-q\/--query|--json) to apply to/);
    }
    const other = await cnv(['api', 'https://other.example.com/v2/contacts', '-H', 'Accept: x'], { env: env() });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/give a path like \/v2\/campaigns, not a URL/);
    expect(seen).toHaveLength(2);
  });
});
