import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../cli/registry.js';
import { checkApiKey } from '../config/api-key.js';
import type { Context } from '../context.js';
import { ApiError, CliError, ExitCode } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { maskKey } from '../http/redact.js';
import type { CommandResult } from '../io/render.js';

type Status = 'ok' | 'warn' | 'fail';
interface Check {
  check: string;
  status: Status;
  detail: string;
}

const PROBE_EMAIL = 'cnv-doctor-probe@example.invalid';
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** Requests that tell whether a gated endpoint is enabled without changing anything. */
const GATED_PROBES: Array<{ name: string; method: 'GET' | 'POST'; path: string; query?: Record<string, string>; body?: unknown }> = [
  { name: 'get contact', method: 'GET', path: '/v2/contacts', query: { email: PROBE_EMAIL } },
  { name: 'create field', method: 'POST', path: '/v2/fields', body: {} },
  { name: 'batch add to audience', method: 'POST', path: `/v2/audiences/${NIL_UUID}/contacts/batch`, body: { contacts: [] } },
  { name: 'batch add to campaign', method: 'POST', path: `/v2/campaigns/${NIL_UUID}/contacts/batch`, body: { contacts: [] } },
  { name: 'export contacts', method: 'POST', path: '/v2/exports/contacts', body: { limit: 1 } },
  {
    name: 'export custom events',
    method: 'POST',
    path: '/v2/exports/custom-events',
    body: { occurredAt: { start: '1970-01-01T00:00:00.000Z', end: '1970-01-01T00:00:00.001Z' }, limit: 1 },
  },
  { name: 'export email events', method: 'POST', path: '/v2/exports/email-events', body: { eventType: 'EMAIL_SEND', limit: 1 } },
];

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
Checks, in order: the config file, the API key's presence and form, the base URL, that the
API answers, that it accepts the key, and for each gated endpoint whether this key may use it
(probes change nothing). Exits 0 when nothing failed; a gated endpoint that is not enabled is a
warning, not a failure.

Examples:
  $ cnv doctor
  $ cnv doctor --json | jq '.[] | select(.status != "ok")'`);
}

export async function run(ctx: Context, _input: CommandInput): Promise<CommandResult> {
  const checks: Check[] = [];
  let exitCode: number = ExitCode.ok;
  const fail = (check: string, err: unknown) => {
    const e = err instanceof CliError ? err : undefined;
    checks.push({ check, status: 'fail', detail: e ? `${e.code}: ${e.message}` : String(err) });
    if (exitCode === ExitCode.ok) exitCode = e?.exitCode ?? ExitCode.internal;
  };

  try {
    const store = await ctx.config();
    checks.push({ check: 'config', status: 'ok', detail: store.path });
  } catch (err) {
    fail('config', err);
  }
  let http: HttpClient | undefined;
  try {
    const creds = await ctx.credentials();
    const { warning } = checkApiKey(creds.apiKey, creds.apiKeySource);
    checks.push({ check: 'api key', status: warning ? 'warn' : 'ok', detail: warning ?? `${maskKey(creds.apiKey)} from ${creds.apiKeySource}` });
    checks.push({ check: 'base url', status: 'ok', detail: `${creds.baseUrl} from ${creds.baseUrlSource}` });
    // Probes should answer fast: one retry at most.
    ctx.globals.maxRetries = Math.min(ctx.globals.maxRetries, 1);
    http = await ctx.http();
  } catch (err) {
    fail('credentials', err);
  }
  if (http && (await reachAndAuth(http, ctx, checks, fail))) {
    for (const probe of GATED_PROBES) checks.push(await gated(http, ctx, probe));
  }
  return { kind: 'list', rows: checks as unknown as Array<Record<string, unknown>>, columns: ['check', 'status', 'detail'], exitCode };
}

async function reachAndAuth(http: HttpClient, ctx: Context, checks: Check[], fail: (c: string, e: unknown) => void): Promise<boolean> {
  try {
    await http.request({ method: 'GET', path: '/v2/campaigns', query: { limit: 1 }, data: z.unknown(), idempotency: 'safe', signal: ctx.signal });
    checks.push({ check: 'reachable', status: 'ok', detail: 'the API answered' });
    checks.push({ check: 'authentication', status: 'ok', detail: 'the key was accepted' });
    return true;
  } catch (err) {
    if (err instanceof ApiError) {
      checks.push({ check: 'reachable', status: 'ok', detail: `the API answered ${err.status}` });
      if (err.status === 401) {
        fail('authentication', err);
        return false;
      }
      checks.push({ check: 'authentication', status: 'ok', detail: 'the key was accepted' });
      return true;
    }
    fail('reachable', err);
    return false;
  }
}

async function gated(http: HttpClient, ctx: Context, probe: (typeof GATED_PROBES)[number]): Promise<Check> {
  const check = `endpoint: ${probe.name}`;
  try {
    await http.request({ ...probe, data: z.unknown(), idempotency: 'safe', signal: ctx.signal });
    return { check, status: 'ok', detail: 'enabled' };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'export_not_enabled') {
      return { check, status: 'warn', detail: 'not enabled for this account (403 export_not_enabled)' };
    }
    if (err instanceof ApiError && err.status === 403) return { check, status: 'warn', detail: `forbidden: ${err.message}` };
    // A 404 about the probe's made-up resource proves the route exists; a bare one does not.
    if (err instanceof ApiError && err.status === 404 && err.code === 'not_found') {
      return { check, status: 'warn', detail: 'the API does not know this endpoint' };
    }
    if (err instanceof ApiError && err.status < 500) return { check, status: 'ok', detail: 'enabled' };
    return { check, status: 'warn', detail: `could not tell: ${err instanceof Error ? err.message : String(err)}` };
  }
}
