import { CliError, ExitCode } from '../errors.js';
import type { StateDir } from './export-deps.js';
import { closeDeadRuns } from './run-record.js';
import { urlWithoutCredentials } from '../config/account-identity.js';
import { checkStateKey } from './state-key.js';
import { ExportStateStore } from './state-store.js';
import type { ExportState, Manifest } from './export-state.js';

/** The store of the config directory in force, and the checked KEY argument. */
export async function openStateStore(
  dir: StateDir,
  rawKey?: unknown,
): Promise<{ store: ExportStateStore; key: string }> {
  const store = await ExportStateStore.open(dir.path, dir.where);
  return { store, key: rawKey === undefined ? '' : checkStateKey(String(rawKey), 'KEY') };
}

export function stateNotFound(key: string): CliError {
  return new CliError(`no export state "${key}"`, {
    exitCode: ExitCode.notFound,
    code: 'state_not_found',
    hint: '`cnv export state list` shows the saved keys',
  });
}

/** "3h 12m" since an ISO time, or null. */
export function age(iso: string | null | undefined, nowMs: number): string | null {
  if (!iso) return null;
  const s = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** The output a state writes to, for JSON: `{kind: 'file', path, bytes}` (bytes committed) or `{kind: 'stdout'}`. */
function outputOf(state: ExportState): Record<string, unknown> {
  const o = state.current.output;
  return o.kind === 'file' ? { kind: 'file', path: o.path, bytes: o.bytes } : { kind: 'stdout' };
}

/** An ISO time as `1m 8s ago`, for a terminal. */
export function agoText(iso: string | null, nowMs: number): string | null {
  return iso ? `${age(iso, nowMs)} ago` : null;
}

/** The columns of `cnv export state list`, in order: JSON members, CSV and table columns alike. */
export const STATE_LIST_COLUMNS = [
  'key',
  'kind',
  'emailType',
  'format',
  'rows',
  'pages',
  'cursorAt',
  'fullAt',
  'output',
  'lastRun',
  'pending',
] as const;

/**
 * One item of `cnv export state list` for machines (`locked`: whether a run holds the key now):
 * ISO times, numbers and objects (docs/output.md); `stateListCells` makes the table's text of it.
 */
export function stateItem(state: ExportState, locked = false): Record<string, unknown> {
  const last = (locked ? state : closeDeadRuns(state)).runs.at(-1);
  const c = state.current;
  const p = state.pending;
  return {
    key: state.key,
    kind: state.kind,
    emailType: state.emailType ?? null,
    format: c.format,
    rows: c.rows,
    pages: c.pages,
    cursorAt: c.cursorAt,
    fullAt: c.fullAt ?? null,
    output: outputOf(state),
    lastRun: last
      ? {
          runId: last.runId,
          status: last.status,
          startedAt: last.startedAt,
          finishedAt: last.finishedAt,
          rows: last.rows,
        }
      : null,
    pending: p ? { runId: p.runId, rows: p.rows - c.rows, savedAt: p.savedAt } : null,
  };
}

/** The table's text of a `stateItem`: ages instead of times, `path (N bytes)`, `complete 5m ago`. */
export function stateListCells(item: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  const output = item.output as { kind: string; path?: string; bytes?: number };
  const last = item.lastRun as { status: string; startedAt: string; finishedAt: string | null } | null;
  const pending = item.pending as { rows: number; savedAt: string } | null;
  const ago = (iso: string | null) => agoText(iso, nowMs);
  return {
    ...item,
    kind: item.emailType ? `${item.kind} ${item.emailType}` : item.kind,
    cursorAt: ago(item.cursorAt as string | null),
    fullAt: ago(item.fullAt as string | null),
    output: output.kind === 'file' ? `${output.path} (${output.bytes} bytes)` : 'stdout',
    lastRun: last ? `${last.status} ${ago(last.finishedAt ?? last.startedAt)}` : null,
    pending: pending ? `${pending.rows} rows, ${ago(pending.savedAt)}` : null,
  };
}

/**
 * One state for `cnv export state show`: the committed position first, then pending and runs.
 * A run left `running` while no process holds the lock is shown as the interrupted run it is.
 * A key in a run's error and field labels, and a password in the base URL, are redacted: cnv never
 * writes them, but a state file edited by hand may hold them.
 */
export function stateDetail(
  saved: ExportState,
  file: string,
  holder: { pid: number; hostname: string; startedAt: string } | undefined,
  redact: (s: string) => string,
): Record<string, unknown> {
  const state = holder ? saved : closeDeadRuns(saved);
  const c = state.current;
  const p = state.pending;
  return {
    key: state.key,
    kind: state.kind,
    ...(state.emailType ? { emailType: state.emailType } : {}),
    profile: state.profile,
    baseUrl: urlWithoutCredentials(state.baseUrl),
    account: state.account,
    stateFile: file,
    lockedBy: holder ?? null,
    cursor: c.cursor,
    cursorAt: c.cursorAt,
    fullAt: c.fullAt ?? null,
    rows: c.rows,
    pages: c.pages,
    format: c.format,
    output: outputOf(state),
    ...(c.window ? { window: c.window } : {}),
    csvColumns: c.csv?.columns ?? null,
    seenAfterCursor: c.seen.length,
    // Several email event types in one state: each type's own cursor.
    ...(c.lanes
      ? {
          types: Object.fromEntries(
            Object.entries(c.lanes).map(([t, l]) => [
              t,
              { cursor: l.cursor, cursorAt: l.cursorAt, rows: l.rows, pages: l.pages, seenAfterCursor: l.seen.length },
            ]),
          ),
        }
      : {}),
    pending: p ? { cursor: p.cursor, rows: p.rows, pages: p.pages, savedAt: p.savedAt, runId: p.runId } : null,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    runs: state.runs.map((m) => shownRun(m, redact)),
  };
}

/** A run's manifest as shown: the key masked in its error and in the labels of members without a column. */
function shownRun(m: Manifest, redact: (s: string) => string): Manifest {
  return {
    ...m,
    ...(m.error === undefined ? {} : { error: redact(m.error) }),
    ...(m.extra ? { extra: { ...m.extra, members: m.extra.members.map(redact) } } : {}),
  };
}
