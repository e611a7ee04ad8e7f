import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnvInProcess } from '../helpers/cli.js';
import { keyEchoRun, storedFiles } from '../helpers/key-echo.js';
import { hostileServer, type HostileServer } from '../helpers/hostile-server.js';

// A server that echoes the key it was sent, in a form no plain text match sees: its secret part
// alone, JSON-escaped, percent-encoded. Whatever cnv prints or stores must not let it be read back.
const KEY = 'sk_live_canary_ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';
const PREFIX = 'sk_live_canary_';
const SECRET = 'ZXQ9c3VwZXJzZWNyZXQ0MmNhbmFyeQ';

const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, '0');
const escaped = (s: string) => [...s].map((c) => `\\u${hex(c, 4)}`).join('');
const encoded = (s: string) => [...s].map((c) => `%${hex(c, 2).toUpperCase()}`).join('');

/** How the server spells the key: the text goes into JSON strings as it is (so `\u…` is a JSON escape). */
const FORMS: Record<string, string> = {
  'the secret alone': SECRET,
  'the whole key, JSON-escaped': escaped(KEY),
  'the secret alone, JSON-escaped': escaped(SECRET),
  'the whole key, percent-encoded': encoded(KEY),
  'the secret alone, percent-encoded': encoded(SECRET),
  'the whole key, base64': Buffer.from(KEY).toString('base64'),
  'the secret alone, base64': Buffer.from(SECRET).toString('base64'),
  'the whole key inside a longer base64 (a Basic credential), URL-safe': Buffer.from(`user:${KEY}`).toString(
    'base64url',
  ),
};

/** Every run of 8 characters that an encoding of the secret holds whatever comes before it (any alignment, either alphabet). */
const BASE64_PIECES = [0, 1, 2].flatMap((skip) => {
  const own = Buffer.concat([Buffer.alloc(skip), Buffer.from(SECRET)])
    .toString('base64')
    .slice(4, -4);
  return [own, own.replace(/\+/g, '-').replace(/\//g, '_')].flatMap((s) =>
    Array.from({ length: s.length - 7 }, (_, i) => s.slice(i, i + 8)),
  );
});

/** Undoes every spelling a reader could undo (JSON escapes, percent-encoding, as often as they nest). */
function readable(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    out = out
      .replace(/\\+u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
  return out;
}

let server: HostileServer;
let form = '';
let exportFails = false;
const reply = (res: import('node:http').ServerResponse, status: number, body: string) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);

beforeAll(async () => {
  server = await hostileServer((req, res, body) => {
    const url = req.url ?? '';
    const echo = `key ${form} refused`;
    if (url.startsWith('/v2/exports/contacts')) {
      // Failing: the second page, so that the run has committed one and records its error.
      if (exportFails && body.includes('"cursor"'))
        return reply(res, 400, `{"error":{"code":"invalid_request","message":"${echo}"}}`);
      return reply(
        res,
        200,
        `{"data":{"contacts":[{"id":"c1","note":"${echo}"}]},"pagination":{"nextCursor":${exportFails ? '"c2"' : 'null'}}}`,
      );
    }
    if (url.endsWith('/contacts/batch')) {
      return reply(
        res,
        200,
        `{"data":{"results":[{"added":false,"error":"invalid_request","message":"${echo}"},{"added":true,"cnvContactId":"id-2"}]}}`,
      );
    }
    if (url.startsWith('/v2/echo')) return reply(res, 200, `{"data":{"note":"${echo}"}}`);
    // The contacts export reads the field definitions first (to record their labels).
    if (url.startsWith('/v2/fields')) return reply(res, 200, '{"data":{"fields":[]},"pagination":{"nextCursor":null}}');
    return reply(res, 400, `{"error":{"code":"invalid_field","message":"${echo}"}}`);
  });
});
afterAll(() => server.close());

describe('the key echoed in any form is never printed nor stored', () => {
  for (const [name, spelling] of Object.entries(FORMS)) {
    it(`${name}: stderr, --debug, the report, stdout, cnv api --include, export files and state`, async () => {
      form = spelling;
      exportFails = false;
      const { dir, env, input, report, out } = keyEchoRun(server.url, KEY);
      const runs = [
        // An error answer: the message on stderr, the body in the debug log.
        await cnvInProcess(['contacts', 'upsert', '--email', 'a@example.com', '--debug'], { env }),
        // A batch answer's item message: in the report, the summary, the debug log.
        await cnvInProcess(
          [
            'audience',
            'add',
            'c1000000-0000-4000-8000-000000000002',
            '--batch',
            input,
            '--report',
            report,
            '--debug',
            '--json',
          ],
          { env },
        ),
        // The same rows listed on stderr (no report).
        await cnvInProcess(['audience', 'add', 'c1000000-0000-4000-8000-000000000002', '--batch', input], { env }),
        // A success answer on stdout and in the debug log; an error body shown by --include.
        await cnvInProcess(['api', 'GET', '/v2/echo', '--debug'], { env }),
        await cnvInProcess(['api', 'GET', '/v2/fail', '--include'], { env }),
        // An export page: the file and the debug log; then a failing run: the state's runs[].error and `state show`.
        await cnvInProcess(['export', 'contacts', '--out', out, '--state-key', 'k', '--debug'], { env }),
      ];
      exportFails = true;
      runs.push(await cnvInProcess(['export', 'contacts', '--out', out, '--state-key', 'k'], { env }));
      runs.push(await cnvInProcess(['export', 'state', 'show', 'k', '--json'], { env }));
      runs.push(await cnvInProcess(['export', 'state', 'show', 'k'], { env }));

      const printed = runs.map((r) => r.stdout + r.stderr).join('\n');
      // The runs did reach the places that echo (the masked form shown instead).
      // A form inside a longer encoding keeps the characters that other bytes share.
      const shown = name.includes('inside')
        ? /key [\w-]+\*\*\*\*[\w=-]* refused/
        : /key (sk_live_canary_)?\*\*\*\* refused/;
      for (const [i, run] of runs.entries()) expect(run.stdout + run.stderr, `run ${i}`).toMatch(shown);
      expect(printed).toContain('x-api-key: sk_live_canary_****');
      expect(readFileSync(report, 'utf8')).toMatch(shown);
      expect(runs.at(-2)!.stdout).toMatch(new RegExp(`"error": "${shown.source}"`));
      const files = storedFiles(dir);
      expect(files.some((f) => f.startsWith('exports'))).toBe(true);
      const stored = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
      for (const [what, text] of [
        ['printed', printed],
        ['stored', stored],
      ]) {
        expect(readable(text), what).not.toContain(SECRET);
        expect(readable(text), what).not.toContain(PREFIX + SECRET.slice(0, 4));
        expect(
          BASE64_PIECES.filter((piece) => text.includes(piece)),
          what,
        ).toEqual([]);
      }
    });
  }
});
