import { resolve } from 'node:path';
import { EMAIL_EVENT_TYPES, type EmailEventType } from '../endpoints/exports.js';
import { CliError, UsageError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { FileLayout } from './csv-layout.js';
import { planFields } from './plan-fields.js';
import type { ExportDeps } from './export-deps.js';
import type { FileStart } from './file-sink.js';
import type { ExportLock } from './lock.js';
import { closeDeadRuns } from './run-record.js';
import type { ExportRunOptions, RunPlan } from './export-run-options.js';
import { accountIdentity, sameAccount, urlWithoutCredentials } from '../config/account-identity.js';
import { defaultStateKey } from './state-key.js';
import { ExportStateStore } from './state-store.js';
import type { ExportState, Position } from './export-state.js';

/** The state's email type of a multi-type export: `all` for the nine, else the comma list. */
export function emailTypesLabel(types: readonly EmailEventType[]): string {
  return types.length === EMAIL_EVENT_TYPES.length ? 'all' : types.join(',');
}

/** Takes the lock, reads the state, and checks the options against it (usage errors, exit 2). */
export async function planExport(deps: ExportDeps, http: HttpClient, opts: ExportRunOptions): Promise<RunPlan> {
  const creds = await deps.account();
  // A user name or password in the base URL is never kept in a state.
  const baseUrl = urlWithoutCredentials(creds.baseUrl);
  const path = opts.out === undefined ? undefined : resolve(opts.out);
  const emailLabel = opts.emailTypes ? emailTypesLabel(opts.emailTypes) : opts.emailType;
  const account = accountIdentity(baseUrl, creds.apiKey);
  let key: string | null = null;
  let store: ExportStateStore | undefined;
  let lock: ExportLock | undefined;
  let prior: ExportState | undefined;
  if (!opts.noState) {
    store = await ExportStateStore.open(deps.stateDir.path, deps.stateDir.where);
    key =
      opts.stateKey ?? defaultStateKey(account, opts.kind, emailLabel, path === undefined ? 'stdout' : { file: path });
    lock = await store.lock(key);
    deps.onDispose(() => lock!.release());
  }
  try {
    if (store && key) {
      await store.removeDeadTemps(key);
      const read = readPrior(deps, store, key, opts.full === true);
      prior = read && closeDeadRuns(read);
    }
    if (prior) checkSameExport(prior, opts, emailLabel, { baseUrl, account }, path);
    if (prior?.pending) {
      deps.notices.warn(
        `export state "${key}": run ${prior.pending.runId} has a pending position (saved ${prior.pending.savedAt}) that was never committed; this run starts again from the committed position (so it sends those rows again) and supersedes it: \`state commit --run ${prior.pending.runId}\` will refuse`,
      );
    }
    const continuing = prior !== undefined && !opts.full;
    const base = continuing ? prior!.current : undefined;
    const window = customEventWindow(opts, key, continuing ? base!.window : null, prior?.current.window ?? null);
    const fileStart = path === undefined ? undefined : fileStartOf(opts, path, base);
    const appending = fileStart?.mode === 'resume' && fileStart.committed > 0;
    if (appending) checkSameWriting(path!, base!, opts);
    const { fieldsBy, fieldKeys, fields, layout, labels, fieldChanges } = await planFields(deps, http, opts, {
      key,
      prior,
      base,
      appending,
      out: path ?? 'stdout',
    });
    const start: Position = base ?? {
      cursor: null,
      cursorAt: null,
      seen: [],
      output: { kind: 'stdout' },
      format: opts.format,
      csv: null,
      window,
      rows: 0,
      pages: 0,
      fullAt: new Date(deps.clock.now()).toISOString(),
    };
    return {
      key,
      profile: creds.profile,
      baseUrl,
      account,
      store,
      lock,
      prior,
      fieldKeys,
      ...(fields ? { fields } : {}),
      start: startPosition(start, opts, window, fieldsBy, labels),
      target: { kind: opts.kind, emailType: opts.emailType, window: window ?? undefined },
      path,
      fileStart,
      layout,
      ...(fieldChanges ? { fieldChanges } : {}),
      restarted: prior !== undefined && !continuing,
      emailLabel,
    };
  } catch (err) {
    await lock?.release();
    throw err;
  }
}

/** The position a run starts from, with this run's compression, field naming (and NDJSON labels) and window. */
function startPosition(
  start: Position,
  opts: ExportRunOptions,
  window: Position['window'],
  fieldsBy: 'label' | 'key',
  fieldLabels: Record<string, string> | undefined,
): Position {
  const compress = opts.compress ? { compress: opts.compress } : {};
  const keyed = fieldsBy === 'key' ? { fieldsBy: 'key' as const } : {};
  const { compress: _was, fieldsBy: _by, fieldLabels: _labels, ...started } = start;
  return { ...started, ...compress, ...keyed, ...(fieldLabels ? { fieldLabels } : {}), window };
}

/** How the output file starts: a temporary file (no state), emptied (--full), resumed where its record says, or new. */
function fileStartOf(opts: ExportRunOptions, path: string, base: Position | undefined): FileStart {
  const recorded = base?.output.kind === 'file' && base.output.path === path ? base.output : undefined;
  if (opts.noState) return { mode: 'temp' };
  if (opts.full) return { mode: 'replace' };
  if (recorded)
    return { mode: 'resume', committed: recorded.bytes, identity: { file: recorded.file, tail: recorded.tail } };
  return { mode: 'new' };
}

/** The saved state of a key; with --full, a damaged one is replaced (said so) rather than refused. */
function readPrior(
  deps: Pick<ExportDeps, 'notices'>,
  store: ExportStateStore,
  key: string,
  full: boolean,
): ExportState | undefined {
  try {
    return store.read(key);
  } catch (err) {
    if (!full || !(err instanceof CliError) || err.code !== 'state_corrupt') throw err;
    deps.notices.warn(`${err.message}; --full starts over and replaces it`);
    return undefined;
  }
}

function checkSameExport(
  prior: ExportState,
  opts: ExportRunOptions,
  emailLabel: string | undefined,
  { baseUrl, account }: { baseUrl: string; account: string },
  path: string | undefined,
): void {
  const what = (kind: string, type?: string) => (type ? `${kind} ${type}` : kind);
  if (prior.kind !== opts.kind || (prior.emailType ?? undefined) !== emailLabel) {
    throw new UsageError(
      `export state "${prior.key}" belongs to a ${what(prior.kind, prior.emailType)} export, not ${what(opts.kind, emailLabel)}`,
      'use another --state-key',
    );
  }
  if (urlWithoutCredentials(prior.baseUrl) !== baseUrl && !opts.full) {
    throw new UsageError(
      `export state "${prior.key}" was made against ${urlWithoutCredentials(prior.baseUrl)}, not ${baseUrl}; its cursor means nothing there`,
      'use another --state-key, or --full',
    );
  }
  if (!sameAccount(prior.account, account) && !opts.full) {
    throw new UsageError(
      `export state "${prior.key}" belongs to the account ${prior.account}, not ${account} (the key in force); another account's position means nothing here`,
      'use another --state-key (or the default one), or --full',
      'state_of_another_account',
    );
  }
  const out = prior.current.output;
  if (out.kind === 'file' && path === undefined && !opts.full) {
    throw new UsageError(
      `export state "${prior.key}" writes to ${out.path}; exporting it to stdout would move its position past rows the file never got`,
      'give the pipeline its own --state-key (without one, exports to stdout use their own default key), or --out the file',
      'state_belongs_to_file',
    );
  }
  if (
    opts.runId !== undefined &&
    (prior.runs.some((m) => m.runId === opts.runId) || prior.pending?.runId === opts.runId)
  ) {
    throw new UsageError(
      `--run ${opts.runId}: export state "${prior.key}" has a run of that id already`,
      'give each run a new id (e.g. --run "$(date +%Y%m%dT%H%M%S)-$$")',
    );
  }
}

/** Custom events: the first run (or --full) sets the window; later runs continue and refuse a new one. */
function customEventWindow(
  opts: ExportRunOptions,
  key: string | null,
  saved: Position['window'],
  previous: Position['window'],
): Position['window'] {
  if (opts.kind !== 'custom-events') return null;
  if (saved) {
    // A cron line that repeats the first run's --since (and --until) continues; another window needs --full.
    // A duration (`--since 7d`) means another time on each run: on a continuing state it is the saved window.
    const since = opts.windowAsTyped?.since ? undefined : opts.since;
    const until = opts.windowAsTyped?.until ? undefined : opts.until;
    const same =
      (since === undefined || since === saved.since) &&
      (until === undefined || until === saved.until) &&
      (since !== undefined || until === undefined || opts.since !== undefined);
    if (!same) {
      throw new UsageError(
        `${since !== undefined ? '--since' : '--until'}: export state "${key}" continues from its saved cursor, whose window is fixed (since ${saved.since}${saved.until ? `, until ${saved.until}` : ''})`,
        'leave --since/--until out (or repeat the saved ones) to continue, or add --full to start again with a new window',
      );
    }
    return saved;
  }
  if (opts.since === undefined) {
    if (previous && opts.full) {
      // --full keeps the window's start; a new --until replaces its end.
      if (opts.until === undefined) return previous;
      if (opts.until < previous.since)
        throw new UsageError(
          `--until: must not be before the window's start (${previous.since}), which --full keeps`,
          'give --since too',
        );
      return { since: previous.since, until: opts.until };
    }
    throw new UsageError(
      `--since is required on the first run of ${key ? `export state "${key}"` : 'an export without state'}`,
      'e.g. --since 2025-01-01T00:00:00Z',
    );
  }
  return { since: opts.since, ...(opts.until !== undefined ? { until: opts.until } : {}) };
}

/**
 * A file appended to keeps one way of writing: the same format, compression and field keys, and
 * for CSV the same cells (another --null-as or --excel-safe would mix `null` markers or formula
 * guards within one file).
 */
function checkSameWriting(path: string, base: Position, opts: ExportRunOptions): void {
  if (base.format !== opts.format) {
    throw new UsageError(
      `${path} holds ${base.format} written by this export; it cannot continue in ${opts.format}`,
      'use the same --format, a new --out file, or --full',
    );
  }
  if ((base.compress ?? undefined) !== opts.compress) {
    throw new UsageError(
      `${path} holds ${base.compress ? 'gzip' : 'uncompressed'} pages written by this export; it cannot continue ${opts.compress ? 'in gzip' : 'uncompressed'}`,
      'use the same --compress, a new --out file, or --full',
    );
  }
  if (opts.fieldsBy !== undefined && (base.fieldsBy ?? 'label') !== opts.fieldsBy) {
    const how = base.format === 'csv' ? 'a header of field' : 'rows naming their fields by field';
    throw new UsageError(
      `--fields-by ${opts.fieldsBy}: ${path} holds ${how} ${base.fieldsBy ?? 'label'}s, as its export state records; it cannot continue by ${opts.fieldsBy}`,
      "leave --fields-by out (a run without it follows the file's), write to a new --out file, or use --full",
    );
  }
  if (base.csv) checkSameCells(path, base.csv, opts);
}

function checkSameCells(path: string, file: FileLayout, opts: ExportRunOptions): void {
  const nullAs = opts.nullAs ?? '';
  if (file.nullAs !== nullAs) {
    // Quoted as the operator would type it in a shell (JSON quoting would show `\N` as "\\N").
    const quoted = (v: string) => (v.includes("'") ? JSON.stringify(v) : `'${v}'`);
    const shown = (v: string) => (v === '' ? 'without --null-as' : `with --null-as ${quoted(v)}`);
    throw new UsageError(
      `--null-as: ${path} was written ${shown(file.nullAs)}; it cannot continue ${shown(nullAs)}`,
      'use the same --null-as, a new --out file, or --full',
    );
  }
  if (file.excelSafe !== opts.excelSafe) {
    const shown = (v: boolean) => (v ? 'with --excel-safe' : 'without --excel-safe');
    throw new UsageError(
      `--excel-safe: ${path} was written ${shown(file.excelSafe)}; it cannot continue ${shown(opts.excelSafe)}`,
      'use the same --excel-safe, a new --out file, or --full',
    );
  }
}
