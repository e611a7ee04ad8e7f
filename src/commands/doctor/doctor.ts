import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../../cmdutil/contract.js';
import { checkApiKey } from '../../config/api-key.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, ExitCode, GatewayError, NotTheApiError } from '../../errors.js';
import type { HttpClient } from '../../http/client.js';
import { maskKey, redactUrl } from '../../redact/redact.js';
import type { CommandResult } from '../../output/render.js';
import { GATED_PROBES, PERMISSION_PROBES, permissionVerdict, probeVerdict, type Check, type Known } from './probes.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      what: 'an array of checks',
      schema: z.array(
        z.strictObject({
          check: z.string(),
          status: z.enum(['ok', 'inferred', 'unchecked', 'warn', 'fail']),
          detail: z.string(),
        }),
      ),
      note: '(ok: a request decided it; inferred: likely, a made-up name left it open; unchecked: not checked, and why)',
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Checks, in order: the config file, the API key's presence and form, the base URL, that the
server answers, that it is this API (asked without a key it must answer 401 unauthorized in
the API's error envelope; any other answer, an HTML page, a redirect, a 404 for everything,
is a failure, exit 3), that it accepts the key, and for each gated endpoint whether this key
may use it, and which permissions it has. One line per check on stdout, a summary line on
stderr below them. Exits 0 when nothing failed; a gated endpoint that is not enabled, or a permission the
key lacks, is a warning, not a failure. A check is "ok" only when a request decided it:
"inferred" when the answer makes it likely but a made-up name left it open, "unchecked" when
doctor could not tell without changing data (the detail says why), never "ok".

Gated endpoints are probed with requests that change nothing and that are valid in every
respect the spec names (the exports read one row, get contact reads the contact the export
showed, the campaign batch add names a real campaign and a contact that does not exist): a
2xx says enabled and 403 export_not_enabled says not enabled, whatever order the server
checks things in. Where the only safe request names something made up (an audience, or a
contact when the export showed none) or cannot create anything (create field, with an
object type the spec does not have), an answer of the API other than 403 (404
audience_not_found, 400 invalid_object_type) is reported as enabled "by inference" (status
inferred), and says so.

Permissions (audience edit, field creation and custom-object edit, edit records) are probed with
requests that name an audience or custom object that does not exist, so nothing can change: a
403 says the key lacks it (warn); any other answer (404: the server looked for the made-up
thing first) does not tell, and the check is "unchecked".

Examples:
  $ cnv doctor
  $ cnv doctor --json | jq '.[] | select(.status != "ok")'`,
  );
}

export async function run(ctx: Context, _input: CommandInput<typeof options>): Promise<CommandResult> {
  const checks: Check[] = [];
  let exitCode: number = ExitCode.ok;
  const fail = (check: string, err: unknown, exit?: number) => {
    const e = err instanceof CliError ? err : undefined;
    checks.push({ check, status: 'fail', detail: e ? `${e.code}: ${e.message}` : String(err) });
    if (exitCode === ExitCode.ok) exitCode = exit ?? e?.exitCode ?? ExitCode.internal;
  };

  try {
    const store = await ctx.config();
    checks.push({ check: 'config', status: 'ok', detail: store.path });
  } catch (err) {
    fail('config', err);
  }
  let http: HttpClient | undefined;
  let baseUrl = '';
  try {
    const creds = await ctx.credentials();
    const { warning } = checkApiKey(creds.apiKey, creds.apiKeySource);
    checks.push({
      check: 'api key',
      status: warning ? 'warn' : 'ok',
      detail: warning ?? `${maskKey(creds.apiKey)} from ${creds.apiKeySource}`,
    });
    baseUrl = redactUrl(creds.baseUrl);
    checks.push({ check: 'base url', status: 'ok', detail: `${baseUrl} from ${creds.baseUrlSource}` });
    // Probes should answer fast: a client that retries once at most.
    http = await ctx.http({ maxRetries: Math.min(ctx.globals.maxRetries, 1) });
  } catch (err) {
    fail('credentials', err);
  }
  if (http && (await isTheApi(http, ctx, checks, fail, baseUrl))) {
    const campaignId = await authenticated(http, ctx, checks, fail);
    if (campaignId !== false) await probeAccess(http, ctx, { campaignId }, checks, fail);
  }
  // What the checks above could not reach: said, never counted as ok.
  const made = new Set(checks.map((c) => c.check));
  for (const name of [
    ...GATED_PROBES.map((p) => `endpoint: ${p.name}`),
    ...PERMISSION_PROBES.map((p) => `permission: ${p.name}`),
  ]) {
    if (!made.has(name))
      checks.push({ check: name, status: 'unchecked', detail: 'not checked: an earlier check failed' });
  }
  // The summary line comes below the table (its trailer), where the eye ends, as gh's does.
  return {
    kind: 'list',
    rows: checks as unknown as Array<Record<string, unknown>>,
    columns: ['check', 'status', 'detail'],
    // Read at 80 columns as at 200: a check's name and detail wrap at spaces, never cut.
    wrap: ['check', 'detail'],
    trailer: summary(checks, baseUrl),
    exitCode,
  };
}

/**
 * Reachable, and this API: asked without a key, the API answers 401 `unauthorized` in its error
 * envelope (spec, Authentication 4). A web server, a redirect, a 404 or 502 for everything do not.
 */
async function isTheApi(
  http: HttpClient,
  ctx: Context,
  checks: Check[],
  fail: (c: string, e: unknown, exit?: number) => void,
  baseUrl: string,
): Promise<boolean> {
  const notTheApi = (what: string) => new NotTheApiError(`this does not look like the API at ${baseUrl}: ${what}`);
  try {
    await http.request({
      method: 'GET',
      path: '/v2/campaigns',
      query: { limit: 1 },
      data: z.unknown(),
      idempotency: 'safe',
      signal: ctx.signal,
      auth: false,
    });
    checks.push({ check: 'reachable', status: 'ok', detail: 'the server answered' });
    fail('api', notTheApi('GET /v2/campaigns answered 2xx without an API key, where the API answers 401 unauthorized'));
    return false;
  } catch (err) {
    if (err instanceof NotTheApiError || err instanceof GatewayError || err instanceof ApiError) {
      checks.push({ check: 'reachable', status: 'ok', detail: 'the server answered' });
    }
    if (err instanceof ApiError && err.status === 401 && err.code === 'unauthorized') {
      checks.push({
        check: 'api',
        status: 'ok',
        detail: "without a key it answered 401 unauthorized in the API's error envelope",
      });
      return true;
    }
    if (err instanceof NotTheApiError) fail('api', err);
    // A gateway's error page on every attempt: whatever is behind it, doctor cannot call it the API.
    else if (err instanceof GatewayError) fail('api', notTheApi(err.message), ExitCode.rejected);
    else if (err instanceof ApiError && err.exitCode !== ExitCode.transient) {
      fail(
        'api',
        notTheApi(
          `without a key GET /v2/campaigns answered ${err.status} ${err.code}, where the API answers 401 unauthorized`,
        ),
      );
    } else fail(err instanceof ApiError ? 'api' : 'reachable', err);
    return false;
  }
}

/** Each gated endpoint (enabled for this key?), then each permission (does the key have it?), with requests that change nothing. */
async function probeAccess(
  http: HttpClient,
  ctx: Context,
  known: Known,
  checks: Check[],
  fail: (c: string, e: unknown) => void,
): Promise<void> {
  for (const probe of GATED_PROBES) {
    const check = `endpoint: ${probe.name}`;
    try {
      const res = await http.request({
        ...probe.request(known),
        data: z.unknown(),
        idempotency: 'safe',
        signal: ctx.signal,
      });
      probe.learn?.(res.data, known);
      checks.push(probeVerdict(check, probe, undefined, known));
    } catch (err) {
      const verdict = probeVerdict(check, probe, err, known);
      if (verdict.status === 'fail') fail(check, err);
      else checks.push(verdict);
    }
  }
  for (const probe of PERMISSION_PROBES) {
    let err: unknown;
    try {
      await http.request({ ...probe.request, data: z.unknown(), idempotency: 'safe', signal: ctx.signal });
    } catch (e) {
      err = e;
    }
    const verdict = permissionVerdict(probe.name, probe.write, err);
    if (verdict.status === 'fail') fail(verdict.check, err);
    else checks.push(verdict);
  }
}

const campaignsPage = z.looseObject({ campaigns: z.array(z.looseObject({ id: z.string() })) });

/** The key is accepted, and a list answer has the API's shape. Returns a campaign id to probe with (or undefined), false on failure. */
async function authenticated(
  http: HttpClient,
  ctx: Context,
  checks: Check[],
  fail: (c: string, e: unknown) => void,
): Promise<string | undefined | false> {
  try {
    const res = await http.request({
      method: 'GET',
      path: '/v2/campaigns',
      query: { limit: 1 },
      data: campaignsPage,
      paginated: true,
      idempotency: 'safe',
      signal: ctx.signal,
    });
    checks.push({
      check: 'authentication',
      status: 'ok',
      detail: "the key was accepted; the campaign list has the API's shape",
    });
    return res.data.campaigns[0]?.id;
  } catch (err) {
    fail('authentication', err);
    return false;
  }
}

function summary(checks: Check[], baseUrl: string): string {
  const count = (s: Check['status']) => checks.filter((c) => c.status === s).length;
  const open = count('inferred') + count('unchecked');
  const failed = checks.find((c) => c.status === 'fail');
  const verdict = !failed
    ? `the API at ${baseUrl} answers and accepts the key`
    : failed.detail.startsWith('not_the_api:')
      ? `this does not look like the API at ${baseUrl}`
      : `the ${failed.check} check failed`;
  const inferred = count('inferred') > 0 ? ` (${count('inferred')} of them inferred)` : '';
  return `doctor: ${count('ok')} ok, ${count('warn')} warnings, ${count('fail')} failed, ${open} not checked${inferred}: ${verdict}`;
}
