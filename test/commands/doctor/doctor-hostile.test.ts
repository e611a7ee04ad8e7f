import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { behaviours, useHostileServer } from '../../helpers/hostile-server.js';

const h = useHostileServer();

describe('cnv doctor against a server that is not the API', () => {
  it('static files, 404 for everything, 502 for everything, redirects, a web page: exit 3, "api" fails, one summary line', async () => {
    for (const [name, handler] of Object.entries({
      staticFiles: behaviours.staticFiles,
      notFound: behaviours.notFound,
      badGateway: behaviours.badGateway,
      redirect: behaviours.redirect,
      html: behaviours.html,
    })) {
      h.server.use(handler);
      const res = await cnvInProcess(['doctor', '--max-retries', '0'], { env: h.env });
      expect(res.exitCode, name).toBe(3);
      const checks = JSON.parse(res.stdout) as Array<{ check: string; status: string; detail: string }>;
      const api = checks.find((c) => c.check === 'api');
      expect(api?.status, name).toBe('fail');
      expect(api?.detail, name).toMatch(/^not_the_api: this does not look like the API at http:\/\/127\.0\.0\.1:\d+: /);
      // What it could not get to is listed as not checked, never left out or "ok".
      const endpoints = checks.filter((c) => c.check.startsWith('endpoint:') || c.check.startsWith('permission:'));
      expect(
        endpoints.map((c) => `${c.status}: ${c.detail}`),
        name,
      ).toEqual(Array(10).fill('unchecked: not checked: an earlier check failed'));
      expect(res.stderr, name).toBe(
        `doctor: 4 ok, 0 warnings, 1 failed, 10 not checked: this does not look like the API at ${h.server.url}\n`,
      );
    }
  });

  it('gated endpoints: decisive whatever order a server checks in (here: body and lookups before enablement)', async () => {
    const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const error = (code: string) => ({ error: { code, message: code } });
    h.server.use((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!req.headers['x-api-key']) return json(res, 401, error('unauthorized'));
      if (url.pathname === '/v2/campaigns')
        return json(res, 200, { data: { campaigns: [{ id: 'c-real' }] }, pagination: { nextCursor: null } });
      // This account has no gated endpoint, but the server validates and looks things up first.
      if (url.pathname === '/v2/fields' && !/"objectType":"CONTACT"/.test(body))
        return json(res, 400, error('invalid_object_type'));
      if (url.pathname === '/v2/contacts' && url.searchParams.has('email'))
        return json(res, 404, error('contact_not_found'));
      if (url.pathname.startsWith('/v2/audiences/00000000-')) return json(res, 404, error('audience_not_found'));
      if (url.pathname.startsWith('/v2/campaigns/') && !url.pathname.startsWith('/v2/campaigns/c-real/'))
        return json(res, 404, error('campaign_not_found'));
      return json(res, 403, error('export_not_enabled'));
    });
    const res = await cnvInProcess(['doctor'], { env: h.env });
    expect(res.exitCode).toBe(0);
    const checks = Object.fromEntries(
      (JSON.parse(res.stdout) as Array<{ check: string; status: string; detail: string }>).map((c) => [
        c.check,
        `${c.status}: ${c.detail}`,
      ]),
    );
    const notEnabled = 'warn: not enabled for this account (403 export_not_enabled)';
    expect(checks['endpoint: export contacts']).toBe(notEnabled);
    expect(checks['endpoint: export custom events']).toBe(notEnabled);
    expect(checks['endpoint: export email events']).toBe(notEnabled);
    expect(checks['endpoint: batch add to campaign']).toBe(notEnabled);
    // Without a safe valid request, the answer is an inference, and says so.
    expect(checks['endpoint: get contact']).toBe(
      'inferred: enabled, by inference: a request naming something made up was answered 404 contact_not_found, not 403 export_not_enabled',
    );
    expect(checks['endpoint: create field']).toMatch(/^inferred: enabled, by inference: .* 400 invalid_object_type/);
    expect(checks['endpoint: batch add to audience']).toMatch(
      /^inferred: enabled, by inference: .* 404 audience_not_found/,
    );
  });

  it('the emulator passes, its base URL given with or without /v2', async () => {
    for (const url of [h.fx.emulator.url, `${h.fx.emulator.url}/v2`, `${h.fx.emulator.url}/v2/`]) {
      const res = await cnvInProcess(['doctor'], { env: { ...h.fx.env, CNV_BASE_URL: url } });
      expect(res.exitCode, url).toBe(0);
      const checks = JSON.parse(res.stdout) as Array<{ check: string; status: string; detail: string }>;
      expect(checks.find((c) => c.check === 'api')?.detail).toMatch(/401 unauthorized/);
      expect(checks.find((c) => c.check === 'endpoint: export contacts')?.detail).toBe('enabled');
      // The contact the export showed is read back: decisive, no inference.
      expect(checks.find((c) => c.check === 'endpoint: get contact')?.detail).toBe('enabled');
      expect(res.stderr).toMatch(
        /^doctor: 11 ok, 0 warnings, 0 failed, 5 not checked \(2 of them inferred\): the API at http:\/\/127\.0\.0\.1:\d+ answers and accepts the key\n$/,
      );
    }
  });

  it('its probes retry once at most, whatever --max-retries says (a client asked for, the globals left alone)', async () => {
    const attempts = new Map<string, number>();
    h.server.use((req, res) => {
      const path = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
      attempts.set(path, (attempts.get(path) ?? 0) + 1);
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
        .end(JSON.stringify({ error: { code: 'unavailable', message: 'down' } }));
    });
    const res = await cnvInProcess(['doctor', '--max-retries', '5'], { env: h.env });
    expect(res.exitCode).not.toBe(0);
    expect(attempts.size).toBeGreaterThan(0);
    // One try and one retry per request doctor sent, never the six --max-retries 5 would give.
    for (const [path, n] of attempts) expect(n, path).toBe(2);
  });
});
