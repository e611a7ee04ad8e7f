import { STATUS_CODES } from 'node:http';
import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { ResponseShapeError, UsageError } from '../../errors.js';
import type { HttpClient, RawResponse, RequestSpec } from '../../http/client.js';
import { MAX_WRITE_BYTES, sizeText } from '../../limits/limits.js';
import { parseJson } from '../../json/exact-json.js';
import type { CommandResult } from '../../output/render.js';
import { escapeControl } from '../../lib/terminal-text.js';
import { writeWithBackpressure } from '../../output/write.js';
import { collectField, fieldsObject, queryValue, readValueFile } from './fields.js';
import { apiIdempotency } from './idempotency.js';
import { stringifyJson } from '../../lib/exact-number.js';
import { CursorTrail } from '../../lib/cursor-trail.js';
import { withPathGuess } from './path-guess.js';
import { MAX_JSON_DEPTH, nestsDeeper } from '../../input/input-rows.js';
import { commandOptions, flag, switchFlag, textFlag, withBrief } from '../../cmdutil/flags.js';
import { collectHeader } from './headers.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** -X/--method: one of METHODS, any case. */
const methodChoice = Object.assign((text: string): Method => checkMethod(text, '-X/--method'), { choices: METHODS });

/** -f and -F in the order given (collectField), the rest as commander gives them. */
const fieldArgs = z.array(z.object({ flag: z.enum(['-f', '-F']), text: z.string() })).optional();
export const options = commandOptions(
  {
    rawField: withBrief(
      flag(
        '-f, --raw-field <key=value>',
        'a string parameter (repeatable): query string for GET, JSON body otherwise',
        fieldArgs,
        { parse: collectField('-f') },
      ),
      'a string parameter (repeatable)',
    ),
    field: withBrief(
      flag(
        '-F, --field <key=value>',
        "a typed parameter (repeatable): true, false, null and numbers as JSON, @file (@- stdin) as the file's text",
        fieldArgs,
        { parse: collectField('-F') },
      ),
      'a typed parameter: JSON values, @file',
    ),
    input: withBrief(
      textFlag('--input <file>', 'the request body, a JSON file (- for stdin); -f/-F then go to the query string'),
      'the request body, a JSON file (- for stdin)',
    ),
    paginate: withBrief(
      switchFlag(
        '--paginate',
        'follow pagination.nextCursor to the last page and print the rows of every page, one JSON line each',
      ),
      'print the rows of every page, one JSON line each',
    ),
    slurp: withBrief(
      switchFlag('--slurp', 'with --paginate: print all rows as one JSON array instead'),
      'with --paginate: all rows as one JSON array',
    ),
    include: withBrief(
      switchFlag(
        '-i, --include',
        'print the status line and the response headers (key masked) before the body; an error answer too, as it came, before the error line on stderr',
      ),
      'print the status line and headers too',
    ),
    method: withBrief(
      flag(
        '-X, --method <method>',
        `the HTTP method: ${METHODS.join(', ')}, any case (default GET, whatever the parameters: a write is always named); or as the first argument`,
        z.enum(METHODS).optional(),
        { parse: methodChoice },
      ),
      'the HTTP method (default GET)',
    ),
    header: withBrief(
      flag(
        '-H, --header <name:value>',
        "an HTTP request header (repeatable), e.g. -H 'Accept-Language: de'; X-API-Key stays cnv's (the key in force)",
        z.array(z.tuple([z.string(), z.string()])).optional(),
        { parse: collectHeader },
      ),
      'an HTTP request header (repeatable)',
    ),
    silent: withBrief(
      switchFlag(
        '--silent',
        'print no response body (the exit code and, with --include, the status line and headers still tell)',
      ),
      'print no response body',
    ),
  },
  {
    globals: ['format', 'json', 'query'],
    check(opts) {
      if (opts.slurp && !opts.paginate) throw new UsageError('--slurp goes with --paginate');
      const { format } = opts;
      if (format === 'csv' || format === 'table')
        throw new UsageError(`-o ${format}: cnv api prints JSON (-o json or ndjson)`);
      if (opts.silent) {
        const flag =
          opts.query !== undefined ? '-q/--query' : opts.json ? '--json' : opts.slurp ? '--slurp' : undefined;
        if (flag)
          throw new UsageError(
            `${flag} and --silent: --silent prints no body for ${flag} to apply to`,
            'drop one of them',
            'conflicting_options',
          );
      }
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      what: "the API's answer as it came",
      schema: z.looseObject({
        data: z.unknown(),
        pagination: z.looseObject({ nextCursor: z.string().nullable() }).optional(),
      }),
    },
    { when: 'with --paginate', lines: true, what: 'the items of every page', schema: z.unknown() },
    { when: 'with --slurp', what: 'one array of the items of every page', schema: z.array(z.unknown()) },
  ],
  note: '-q applies to the answer, to each item, or to the --slurp array; with --silent no body (-q and --json are refused)',
});

export function configure(cmd: Command): void {
  cmd
    .argument('[method]', `HTTP method: ${METHODS.join(', ')} (any case); or -X METHOD; left out: GET`)
    .argument('[path]', 'API path, e.g. /v2/campaigns or campaigns (the /v2 prefix is added); never a full URL')
    .addHelpText(
      'after',
      `
Sends one request through the same path as every command: the key and base URL of the profile
in force, the rate limit, retries, --dry-run (writes are printed, not sent), --verbose and the
usual exit codes (an error answer exits 3, 4, 5 or 7 with "error: <code>: <message>" on stderr).

The method: the first argument (cnv api POST /v2/contacts), or -X/--method (cnv api /v2/contacts
-X POST); left out it is GET, with or without parameters (gh api would POST those: here a
write is always named). Headers: -H 'Name: value' (repeatable) adds one; X-API-Key is never
taken from -H (it is the key in force: --api-key, CNV_API_KEY or the profile's), nor the
transport's own (Host, Content-Length, ...). --silent prints no body; the exit code still
tells how it went, and --include still prints the status line and headers.

Parameters: -f key=value is a string; -F key=value is typed like gh's (true, false, null, numbers;
@file reads a file). key[sub]=v nests and key[]=v appends: -F 'occurredAt[start]=2025-01-01T00:00:00Z'.
For GET they go to the query string, otherwise into a JSON body (or, with --input, the query).
-f and -F mean the same in \`cnv contacts upsert\` (a string, JSON when it parses); there the long
--field (no short name) is another flag: it converts the value by the field's definition.

Retries: GET and DELETE are retried after a transient failure. A POST is retried only on the
endpoints where a repeat changes nothing (upsert contact, add to audience or campaign and their
batches, record batches, the exports, track event with a clientEventId); any other POST (create
field, relationship fields, trigger workflow, unknown paths), PUT and PATCH only when it
provably never reached the server, so it never runs twice.

--paginate sends the cursor of pagination.nextCursor as the \`cursor\` query parameter (GET) or body
member (POST; a custom event export's occurredAt is dropped, as the cursor carries it) until it is
null, and prints the items of each page's data array as they come, one JSON line each
(NDJSON, constant memory); --slurp collects them into one array. A page whose data has no
single array is printed whole, one line a page. -q applies to the answer, to each item, or to
the --slurp array.

Examples:
  $ cnv api GET /v2/campaigns -f limit=2
  $ cnv api GET campaigns --paginate -q name
  $ cnv api POST /v2/contacts -f email=ada@example.com -F 'fields[score]=42'
  $ cnv api POST /v2/exports/email-events -f eventType=EMAIL_OPEN --paginate --slurp
  $ echo '{"email":"ada@example.com"}' | cnv api DELETE /v2/audiences/c1000000-0000-4000-8000-000000000002/contacts --input -
  $ cnv api GET /v2/contacts -f email=ada@example.com --include
  $ cnv api /v2/campaigns -X get -H 'Accept-Language: de' --silent && echo reachable`,
    );
}

/**
 * The method and path: `cnv api METHOD PATH`, or `cnv api PATH` with -X METHOD, or without it
 * GET. (gh api turns a request with parameters into a POST; here a write is always named, so
 * `cnv api contacts -f email=...` looks a contact up and never creates one.)
 */
function methodAndPath(args: unknown[], opts: { method?: Method }): { method: Method; path: string } {
  const given = args.filter((a): a is string => typeof a === 'string');
  if (given.length === 0)
    throw new UsageError('give the API path, e.g. cnv api /v2/campaigns (or cnv api GET /v2/campaigns)');
  if (given.length === 1) {
    if ((METHODS as readonly string[]).includes(given[0].trim().toUpperCase()))
      throw new UsageError(`${given[0]}: give the API path after the method, e.g. cnv api ${given[0]} /v2/campaigns`);
    return { method: opts.method ?? 'GET', path: checkPath(given[0]) };
  }
  const method = checkMethod(given[0], 'method');
  if (opts.method !== undefined && opts.method !== method)
    throw new UsageError(
      `the method is given twice: ${method} and -X ${opts.method}`,
      'give it once',
      'conflicting_options',
    );
  return { method, path: checkPath(given[1]) };
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const { method, path } = methodAndPath(args, opts);
  const fields = await fieldsObject([...(opts.rawField ?? []), ...(opts.field ?? [])], ctx.io.stdin, ctx.signal);
  let body: unknown;
  let query: Record<string, string> = {};
  if (opts.input !== undefined) {
    if (method === 'GET') throw new UsageError('--input: a GET request sends no body; give its parameters with -f/-F');
    body = parseBody(await readValueFile(opts.input, '--input ', ctx.io.stdin, ctx.signal), opts.input);
    query = toQuery(fields);
  } else if (method === 'GET') {
    query = toQuery(fields);
  } else if (Object.keys(fields).length > 0) {
    body = fields;
    // Several -F k=@file values together may pass what cnv writes in one body.
    if (Buffer.byteLength(stringifyJson(fields)) > MAX_WRITE_BYTES)
      throw new UsageError(
        `-f/-F: the body they make is larger than ${sizeText(MAX_WRITE_BYTES)}`,
        'send less in one request',
      );
  }
  const pathname = path.split('?')[0];
  const printer = await makePrinter(ctx, opts.include === true, opts.silent === true);
  // With --include an error answer is shown as it came too (like gh), before the usual error line.
  const onErrorAnswer = opts.include
    ? (answer: { status: number; headers: RawResponse['headers']; text: string }) => {
        const text = answer.text + (answer.text.endsWith('\n') ? '' : '\n');
        // Not JSON made by cnv but the server's text: on a terminal it cannot act on it.
        ctx.io.stdout.write(printer.headText(answer) + (ctx.io.stdoutIsTTY ? escapeControl(text, '\n\t') : text));
      }
    : undefined;
  const headers = opts.header === undefined ? undefined : Object.fromEntries(opts.header);
  const spec = {
    method,
    path,
    query,
    body,
    headers,
    idempotency: apiIdempotency(method, pathname, body),
    signal: ctx.signal,
    onErrorAnswer,
  };
  const http = await ctx.http();
  if (!opts.paginate) {
    // A 404 of a path no endpoint has names the closest one (path-guess.ts).
    const res = await http
      .requestRaw(spec)
      .catch((err: unknown) => Promise.reject(withPathGuess(err, method, pathname)));
    await printer.head(res);
    await printer.document(res.json);
    return { kind: 'none' };
  }
  if (method !== 'GET' && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new UsageError('--paginate: the body must be a JSON object, to carry the cursor');
  }
  const slurped: unknown[] = [];
  const emit = opts.slurp ? async (item: unknown) => void slurped.push(item) : (item: unknown) => printer.line(item);
  for await (const page of guessed(pages(http, spec), method, pathname)) {
    if (!opts.slurp) await printer.head(page);
    const items = pageItems(page.json);
    for (const item of items ?? [page.json]) await emit(item);
  }
  if (opts.slurp) await printer.document(slurped);
  return { kind: 'none' };
}

function checkMethod(text: string, what: string): Method {
  const method = text.trim().toUpperCase();
  if (!(METHODS as readonly string[]).includes(method))
    throw new UsageError(`${what} "${text}": expected one of ${METHODS.join(', ')}`);
  return method as Method;
}

/** A path below the base URL in force: never a URL of another host (the key goes with it), never `..`. */
function checkPath(text: string): string {
  const raw = text.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) {
    throw new UsageError(
      `path "${text}": give a path like /v2/campaigns, not a URL`,
      'the key is sent only to the base URL in force (--base-url, CNV_BASE_URL or the profile)',
    );
  }
  if (raw === '' || /[\s\x00-\x1f\x7f#]/.test(raw))
    throw new UsageError(`path "${text}": empty, or holds spaces, control characters or #`);
  let path = raw.startsWith('/') ? raw : `/${raw}`;
  if (!/^\/v2(\/|\?|$)/i.test(path)) path = `/v2${path}`;
  const segments = path.split('?')[0].split('/');
  if (segments.some((s) => /^(\.|%2e){1,2}$/i.test(s)))
    throw new UsageError(`path "${text}": "." and ".." segments are not allowed`);
  return path;
}

function toQuery(fields: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, queryValue(v)]));
}

function parseBody(text: string, path: string): unknown {
  // Deeper would overflow recursive code (JSON.stringify) on the way out: exit 1, "a bug".
  if (nestsDeeper(text))
    throw new UsageError(`--input ${path === '-' ? 'stdin' : path}: nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return parseJson(text);
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : undefined;
    throw new UsageError(
      `--input ${path === '-' ? 'stdin' : path}${line ? ` line ${line}` : ''}: not valid JSON (${message})`,
    );
  }
}

/** The pages, a 404 of the first one with the path guess of path-guess.ts. */
async function* guessed(pages: AsyncGenerator<RawResponse>, method: string, pathname: string) {
  try {
    yield* pages;
  } catch (err) {
    throw withPathGuess(err, method, pathname);
  }
}

/** Each page of a paginated answer, following pagination.nextCursor until it is null. */
async function* pages(http: HttpClient, first: RequestSpec): AsyncGenerator<RawResponse> {
  let spec = first;
  // Digests of the cursors followed, not the cursors (a server may make them megabytes long).
  const seen = new CursorTrail();
  for (;;) {
    const res = await http.requestRaw(spec);
    yield res;
    // The cursor as the client hands it out (the printed answer holds it masked): src/http/cursor-seal.ts.
    const next = res.nextCursor !== undefined ? res.nextCursor : pageCursor(res.json);
    if (next === null || next === undefined || next === '') return;
    if (typeof next !== 'string')
      throw new ResponseShapeError(
        `unexpected response from ${spec.method} ${spec.path}: pagination.nextCursor is not a string`,
      );
    // A server handing the same cursor back would keep cnv paging forever.
    if (seen.has(next))
      throw new ResponseShapeError(
        `unexpected response from ${spec.method} ${spec.path}: pagination.nextCursor repeats an earlier one`,
      );
    seen.add(next);
    if (spec.method === 'GET') {
      spec = { ...spec, query: { ...spec.query, cursor: next } };
    } else {
      const { occurredAt: _window, ...rest } = (spec.body ?? {}) as Record<string, unknown>;
      spec = { ...spec, body: { ...rest, cursor: next } };
    }
  }
}

function pageCursor(json: unknown): unknown {
  return (json as { pagination?: { nextCursor?: unknown } } | null)?.pagination?.nextCursor;
}

/** The items of a page: the one array member of its `data` (data.campaigns, data.events), if there is exactly one. */
function pageItems(json: unknown): unknown[] | undefined {
  const data = (json as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const arrays = Object.values(data).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

async function makePrinter(
  ctx: Context,
  include: boolean,
  silent: boolean,
): Promise<{
  /** The status line and headers, and the blank line after them. */
  headText(res: Pick<RawResponse, 'status' | 'headers'>): string;
  head(res: RawResponse): Promise<void>;
  /** A whole JSON document (pretty, or one line with -o ndjson). */
  document(value: unknown): Promise<void>;
  /** One JSON line. */
  line(value: unknown): Promise<void>;
}> {
  const out = ctx.io.stdout;
  const compact = ctx.globals.format === 'ndjson';
  const expression = ctx.globals.query;
  const query =
    expression === undefined
      ? undefined
      : await import('../../output/query.js').then(async (q) => ({
          run: await q.loadQuery(expression),
          text: q.queryText,
          document: (value: unknown, compact: boolean) =>
            q.documentQueryText(expression, value, compact, (message) => ctx.warn(message)),
        }));
  const headText = (res: Pick<RawResponse, 'status' | 'headers'>) => {
    let text = `HTTP ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd() + '\n';
    for (const [name, value] of Object.entries(res.headers)) for (const v of [value].flat()) text += `${name}: ${v}\n`;
    return (ctx.io.stdoutIsTTY ? escapeControl(ctx.redact(text), '\n') : ctx.redact(text)) + '\n';
  };
  return {
    headText,
    async head(res) {
      if (include) await writeWithBackpressure(out, headText(res));
    },
    document: async (value) => {
      if (silent) return;
      await writeWithBackpressure(
        out,
        query ? query.document(value, compact) : (compact ? stringifyJson(value) : stringifyJson(value, 2)) + '\n',
      );
    },
    line: async (value) => {
      if (silent) return;
      await writeWithBackpressure(out, query ? query.text(query.run(value), true) : stringifyJson(value) + '\n');
    },
  };
}
