import { resolve } from 'node:path';
import type { EmailEventType } from '../api/exports.js';
import { configDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { csvLayout, type CsvLayout } from './csv-columns.js';
import type { FileStart } from './file-sink.js';
import type { ExportTarget } from './kinds.js';
import { acquireExportLock, type ExportLock } from './lock.js';
import { defaultStateKey } from './state-key.js';
import { ExportStateStore } from './state-store.js';
import type { ExportKind, ExportState, FileFormat, Position } from './state.js';

/** Everything an export run was asked for, validated. */
export interface ExportRunOptions {
  kind: ExportKind;
  emailType?: EmailEventType;
  since?: string;
  until?: string;
  /** Output file; undefined for stdout. */
  out?: string;
  format: FileFormat;
  limit: number;
  full: boolean;
  noState: boolean;
  stateKey?: string;
  maxPages?: number;
  maxRows?: number;
  deferCommit: boolean;
  columns?: string[];
  bom: boolean;
  /** --null-as: CSV text for null values (default: an empty cell). */
  nullAs?: string;
  /** --summary-json: where the run summary goes as JSON (a file, or - when rows go to a file). */
  summaryJson?: string;
}

/** Where a run starts and how it writes, once options and the saved state are reconciled. */
export interface RunPlan {
  key: string | null;
  profile: string;
  baseUrl: string;
  store?: ExportStateStore;
  lock?: ExportLock;
  prior?: ExportState;
  start: Position;
  target: ExportTarget;
  path?: string;
  fileStart?: FileStart;
  layout: CsvLayout | null;
  /** --full over an existing state: its first page is saved even when empty (a new start, a new window). */
  restarted: boolean;
}

/** Takes the lock, reads the state, and checks the options against it (usage errors, exit 2). */
export async function planExport(ctx: Context, http: HttpClient, opts: ExportRunOptions): Promise<RunPlan> {
  const creds = await ctx.credentials();
  const path = opts.out === undefined ? undefined : resolve(opts.out);
  let key: string | null = null;
  let store: ExportStateStore | undefined;
  let lock: ExportLock | undefined;
  let prior: ExportState | undefined;
  if (!opts.noState) {
    key = opts.stateKey ?? defaultStateKey(creds.profile, creds.baseUrl, opts.kind, opts.emailType);
    store = await ExportStateStore.open(configDir(ctx.env));
    lock = await acquireExportLock(store.pathOf(key), key);
    ctx.onDispose(() => lock!.release());
    prior = store.read(key);
    if (prior?.pending) ctx.warn(`export state "${key}" has a pending position (saved ${prior.pending.savedAt}) that was never committed; this run starts from the committed one and replaces it`);
  }
  try {
    if (prior) checkSameExport(prior, opts, creds.baseUrl);
    const continuing = prior !== undefined && !opts.full;
    const base = continuing ? prior!.current : undefined;
    const window = customEventWindow(opts, key, continuing ? base!.window : null, prior?.current.window ?? null);
    let fileStart: FileStart | undefined;
    if (path !== undefined) {
      const recorded = base?.output.kind === 'file' && base.output.path === path ? base.output.bytes : undefined;
      fileStart = opts.noState || opts.full ? { mode: 'replace' } : recorded !== undefined ? { mode: 'resume', committed: recorded } : { mode: 'new' };
    }
    const appending = fileStart?.mode === 'resume' && fileStart.committed > 0;
    if (appending && base!.format !== opts.format) {
      throw new UsageError(`${path} holds ${base!.format} written by this export; it cannot continue in ${opts.format}`, 'use the same --format, a new --out file, or --full');
    }
    const layout = opts.format === 'csv' ? await chooseLayout(ctx, http, opts, appending ? base!.csv : null, base?.csv ?? null) : null;
    const start: Position = base ?? {
      cursor: null, cursorAt: null, seen: [], output: { kind: 'stdout' }, format: opts.format, csv: null, window, rows: 0, pages: 0,
    };
    return { key, profile: creds.profile, baseUrl: creds.baseUrl, store, lock, prior, start: { ...start, window }, target: { kind: opts.kind, emailType: opts.emailType, window: window ?? undefined }, path, fileStart, layout, restarted: prior !== undefined && !continuing };
  } catch (err) {
    await lock?.release();
    throw err;
  }
}

function checkSameExport(prior: ExportState, opts: ExportRunOptions, baseUrl: string): void {
  const what = (kind: string, type?: string) => (type ? `${kind} ${type}` : kind);
  if (prior.kind !== opts.kind || (prior.emailType ?? undefined) !== opts.emailType) {
    throw new UsageError(
      `export state "${prior.key}" belongs to a ${what(prior.kind, prior.emailType)} export, not ${what(opts.kind, opts.emailType)}`,
      'use another --state-key',
    );
  }
  if (prior.baseUrl !== baseUrl && !opts.full) {
    throw new UsageError(`export state "${prior.key}" was made against ${prior.baseUrl}, not ${baseUrl}; its cursor means nothing there`, 'use another --state-key, or --full');
  }
}

/** Custom events: the first run (or --full) sets the window; later runs continue and refuse a new one. */
function customEventWindow(opts: ExportRunOptions, key: string | null, saved: Position['window'], previous: Position['window']): Position['window'] {
  if (opts.kind !== 'custom-events') return null;
  if (saved) {
    if (opts.since !== undefined || opts.until !== undefined) {
      throw new UsageError(
        `${opts.since !== undefined ? '--since' : '--until'}: export state "${key}" continues from its saved cursor, whose window is fixed (since ${saved.since}${saved.until ? `, until ${saved.until}` : ''})`,
        'leave --since/--until out to continue, or add --full to start again with a new window',
      );
    }
    return saved;
  }
  if (opts.since === undefined) {
    if (previous && opts.full) {
      // --full keeps the window's start; a new --until replaces its end.
      if (opts.until === undefined) return previous;
      if (opts.until < previous.since) throw new UsageError(`--until: must not be before the window's start (${previous.since}), which --full keeps`, 'give --since too');
      return { since: previous.since, until: opts.until };
    }
    throw new UsageError(`--since is required on the first run of ${key ? `export state "${key}"` : 'an export without state'}`, 'e.g. --since 2025-01-01T00:00:00Z');
  }
  return { since: opts.since, ...(opts.until !== undefined ? { until: opts.until } : {}) };
}

/** The CSV header: the file's own when appending, else --columns, else the saved one, else every column. */
async function chooseLayout(ctx: Context, http: HttpClient, opts: ExportRunOptions, fileLayout: CsvLayout | null, saved: CsvLayout | null): Promise<CsvLayout> {
  const labels = opts.kind === 'contacts' && (opts.columns || (!fileLayout && (!saved || opts.full))) ? await contactFieldLabels(http, ctx.signal) : [];
  const asked = opts.columns ? csvLayout(opts.kind, labels, opts.columns) : undefined;
  if (fileLayout) {
    if (asked && asked.columns.join('\u0000') !== fileLayout.columns.join('\u0000')) {
      throw new UsageError(`--columns: the file's header is fixed (${fileLayout.columns.join(',')}); a file keeps one header`, 'leave --columns out, write to a new --out file, or use --full');
    }
    return fileLayout;
  }
  if (asked) return asked;
  if (saved && !opts.full) return saved;
  return csvLayout(opts.kind, labels);
}

async function contactFieldLabels(http: HttpClient, signal: AbortSignal): Promise<string[]> {
  const { allFieldPages } = await import('../api/fields.js');
  const labels: string[] = [];
  for await (const fields of allFieldPages(http, { objectType: 'CONTACT' }, signal)) labels.push(...fields.map((f) => f.label));
  return labels;
}
