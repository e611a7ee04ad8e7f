import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';
import { behaviours, useHostileServer } from '../helpers/hostile-server.js';

const h = useHostileServer();

describe('commands against a server that is not the API', () => {
  it('contacts get against a static file server: exit 3 not_the_api, not 5, and no HTML in the message', async () => {
    h.server.use(behaviours.staticFiles);
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env: h.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toBe(
      `error: not_the_api: this does not look like the API at ${h.server.url}: GET /v2/contacts answered 404 with an HTML page ("Error response")\n` +
        "hint: check --base-url (or CNV_BASE_URL, or the profile's URL): it must be the address the API answers at\n",
    );
  });

  it('export contacts against a server answering 501 exits 3 at once, not 7 (cron would retry forever)', async () => {
    // The field list the export reads first is answered; the export page itself gets a 501 page.
    h.server.use((req, res) => {
      if (req.method === 'GET')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"data":{"fields":[]},"pagination":{"nextCursor":null}}');
      behaviours.staticFiles(req, res, '');
    });
    const before = h.server.requests;
    const res = await cnvInProcess(['export', 'contacts', '--out', `${tempConfigDir()}/out.csv`], { env: h.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(
      /^error: not_the_api: this does not look like the API at http:\/\/127\.0\.0\.1:\d+: POST \/v2\/exports\/contacts answered 501 with an HTML page \("Error response"\)$/m,
    );
    expect(h.server.requests - before).toBe(2); // one field list, one page: no retry
  });

  it('contacts get with the emulator URL ending in /v2 works', async () => {
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...h.fx.env, CNV_BASE_URL: `${h.fx.emulator.url}/v2` },
    });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).email).toBe('ada@example.com');
  });

  it('Retry-After: 999999 gives up at once with exit 7, saying when to try again', async () => {
    h.server.use(behaviours.retryAfterHuge);
    const before = h.server.requests;
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], { env: h.env });
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(
      /^error: rate_limited: slow down; the server asks to wait 11\.6 days \(Retry-After\) before trying again, longer than the 60 s cnv waits at most\nhint: try again after \d{4}-/,
    );
    expect(h.server.requests - before).toBe(1);
    const longer = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...h.env, CNV_MAX_RETRY_WAIT: '5' },
    });
    expect(longer.stderr).toMatch(/longer than the 5 s cnv waits at most/);
    const bad = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...h.env, CNV_MAX_RETRY_WAIT: 'soon' },
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/CNV_MAX_RETRY_WAIT must be a whole number of seconds/);
  });
});

describe('what the server sends cannot act on the terminal', () => {
  const message = 'title \u001b]0;pwned\u0007 cr\rover\nhint: forged line \u202eevil\u009b2J';

  it('escape codes, CR, newlines and bidi overrides in an error are shown escaped; the --json line keeps them exact', async () => {
    h.server.use(behaviours.escapes);
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com', '--json'], { env: h.env });
    expect(res.exitCode).toBe(3);
    const [line, json, rest] = res.stderr.split('\n');
    expect(line).toBe(
      'error: bad\\x1b[31mred: title \\x1b]0;pwned\\x07 cr\\rover\\nhint: forged line \\u202eevil\\u009b2J',
    );
    expect(JSON.parse(json).error).toMatchObject({ code: 'bad\u001b[31mred', message, status: 400, exitCode: 3 });
    expect(rest).toBe('');
    expect(res.stderr).not.toMatch(/[\u001b\r\u0007\u202e\u009b]/);
  });

  it('control characters in data are escaped in -o table, exact in JSON and CSV', async () => {
    const contact = {
      cnvContactId: '11111111-1111-4111-8111-111111111111',
      email: 'ada@example.com',
      userId: 'u\u001b[2J',
      subscriptionStatus: 'SUBSCRIBED',
      fields: { note: 'bell\u0007 osc\u001b]8;;http://evil/\u001b\\ rtl\u202e' },
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
    };
    h.server.use((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { contact } })),
    );
    const table = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com', '-o', 'table'], { env: h.env });
    expect(table.exitCode).toBe(0);
    expect(table.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(table.stdout).toContain('u\\x1b[2J');
    expect(table.stdout).toContain('bell\\x07 osc\\x1b]8;;http://evil/\\x1b\\ rtl\\u202e');
    const json = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com', '-o', 'json'], { env: h.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ userId: contact.userId, fields: contact.fields });
    const csv = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com', '-o', 'csv'], { env: h.env });
    expect(csv.stdout).toContain(contact.userId);
  });
});

describe('credentials in the base URL', () => {
  const withCreds = () => h.server.url.replace('http://', 'http://admin:hunter2@');

  it('are refused for use (exit 2), never printed, also with --dry-run and --verbose', async () => {
    for (const args of [
      ['contacts', 'get', '--email', 'ada@example.com'],
      ['contacts', 'upsert', '--email', 'ada@example.com', '--dry-run'],
      ['doctor', '--verbose'],
    ]) {
      const res = await cnvInProcess(args, { env: { ...h.env, CNV_BASE_URL: withCreds() } });
      expect(res.exitCode, args.join(' ')).toBe(2);
      expect(res.stdout + res.stderr).not.toContain('hunter2');
      expect(res.stdout + res.stderr).not.toContain('admin:');
    }
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ada@example.com'], {
      env: { ...h.env, CNV_BASE_URL: withCreds() },
    });
    expect(res.stderr).toMatch(
      /^error: credentials_in_url: the base URL from CNV_BASE_URL contains a user name or password \(http:\/\/\*\*\*@127\.0\.0\.1:\d+\/\); cnv does not send them\n/,
    );
  });

  it('are redacted by config show', async () => {
    const res = await cnvInProcess(['config', 'show', '--json'], { env: { ...h.env, CNV_BASE_URL: withCreds() } });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).baseUrl).toBe(h.server.url.replace('http://', 'http://***@'));
  });
});
