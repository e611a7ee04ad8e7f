import type { ReporterDeps } from './export-deps.js';
import type { ExportRunOptions } from './export-run-options.js';
import type { FieldChanges } from './field-binding.js';
import { interruptedBy, OutputClosedError } from '../errors.js';
import { writeSummaryJson } from '../output/summary-json.js';
import { duration, plural, rate } from '../output/wording.js';
import { shellWord } from '../lib/shell-word.js';

/** What a run did: a line on stderr at the end, and the document of --summary-json and --json. */
export interface ExportSummary {
  status: 'complete' | 'stopped' | 'failed' | 'interrupted';
  rows: number;
  /** Rows fetched again from the saved cursor and skipped, because an earlier run delivered them. */
  skipped: number;
  pages: number;
  bytes: number;
  elapsedMs: number;
  stateKey: string | null;
  /** The run's id (with a state): `cnv export state commit KEY --run ID` commits a --defer-commit run by it. */
  runId: string | null;
  /** Whether the export has more to give (a non-null cursor when the run stopped). */
  moreRemains: boolean;
  output: string;
  /** --defer-commit: the position is pending until `cnv export state commit KEY`. */
  pending: boolean;
  /** Uncommitted bytes cut from the end of the file before writing. */
  cutBytes: number;
  /** Several email event types in one run: how each type ended. */
  types?: Record<string, TypeOutcome>;
  /** Contacts: the account's fields changed since the file's header was bound, or (NDJSON) since the last run (field-binding.ts). */
  fieldChanges?: FieldChanges;
  /** CSV: the values written to `_extra` (no column of the header holds them), in how many rows, under which names. */
  extra?: ExtraSummary;
  /** Custom events: the occurredAt window the run used (ISO times; a --since 7d made absolute). */
  window?: { since: string; until?: string };
  /** The last run of this state did not complete (Ctrl-C, a kill, a failure, a limit): the row it continues from, 1-based. */
  resumedAt?: number;
}

/** What a CSV run put in `_extra`. */
interface ExtraSummary {
  values: number;
  rows: number;
  /** The names `_extra` keys them by (`fields.<label>`, a member), the first 20. */
  members: string[];
}

/** Adds a committed page's `_extra` figures to the summary (a CSV run's). */
export function addExtra(summary: ExportSummary, page: ExtraSummary | undefined): void {
  if (!summary.extra || !page) return;
  summary.extra.values += page.values;
  summary.extra.rows += page.rows;
  if (page.values > 0) summary.extra.members = page.members;
}

/** How one email event type of a multi-type run ended (`stopped`: another type's failure stopped the run). */
export interface TypeOutcome {
  status: 'complete' | 'failed' | 'stopped';
  rows: number;
  pages: number;
  error?: string;
}

/** Progress on a TTY (rows, pages, rows/s), then the summary. */
export interface ExportReporter {
  page(rows: number, pages: number): void;
  /** `newState`: this run created its state key (a first run). */
  done(summary: ExportSummary, run?: { newState?: boolean }): void;
}

export async function createReporter(
  deps: ReporterDeps,
  label: string,
  options: Pick<ExportRunOptions, 'summaryJson' | 'out' | 'stateKey' | 'windowAsTyped'> = {},
): Promise<ExportReporter> {
  const { summaryJson } = options;
  const { clock, signal, notices } = deps;
  const started = clock.now();
  let spinner: { text: string; stop(): void } | undefined;
  if (deps.progress) {
    const { default: ora } = await import('ora');
    spinner = ora({
      text: `${label}: starting`,
      stream: deps.progress.stream,
      isEnabled: true,
      discardStdin: false,
      color: deps.progress.color ? 'cyan' : false,
    }).start();
  }
  let finished = false;
  // A run that fails before its first page (the plan: state, lock, field definitions) never
  // reaches done(); its --summary-json (and --json document) still says how it ended.
  if (summaryJson || deps.printDocument) {
    deps.onDispose(() => {
      if (finished) return;
      const status = interruptedBy(signal) ? 'interrupted' : 'failed';
      writeSummaries(deps, label, summaryJson, {
        status,
        rows: 0,
        skipped: 0,
        pages: 0,
        bytes: 0,
        elapsedMs: clock.now() - started,
        stateKey: options.stateKey ?? null,
        runId: null,
        moreRemains: true,
        output: options.out ?? 'stdout',
        pending: false,
        cutBytes: 0,
      });
    });
  }
  return {
    page(rows, pages) {
      if (!spinner) return;
      const seconds = Math.max(0.001, (clock.now() - started) / 1000);
      spinner.text = `${label}: ${plural(rows, 'row')}, ${plural(pages, 'page')}${rate(rows, seconds * 1000)}`;
    },
    done(summary, run = {}) {
      finished = true;
      spinner?.stop();
      // `| head` closed stdout: the reader has what it wanted; stay quiet (exit 141).
      if (!(signal.reason instanceof OutputClosedError)) {
        // Refused before a page came (a key without the endpoint, a bad cursor): the error line says it all.
        if (summary.status !== 'failed' || summary.pages > 0 || summary.cutBytes > 0)
          notices.info(summaryLine(label, summary, options.windowAsTyped));
        // A cron log (--quiet 2>>log) keeps what the summary says of a header that no longer fits the account.
        if (deps.quiet && summary.extra?.values) notices.tell(extraLine(summary));
        const note = stdoutStateNote(summary, run.newState === true);
        if (note) notices.info(note);
      }
      writeSummaries(deps, label, summaryJson, summary);
    },
  };
}

/**
 * The --summary-json file and the --json document on stdout (once, when both name stdout); a
 * run that failed anyway keeps its own error and only warns about the file.
 */
function writeSummaries(
  deps: Pick<ReporterDeps, 'notices' | 'stdout' | 'printDocument'>,
  label: string,
  path: string | undefined,
  summary: ExportSummary,
): void {
  const document = { command: label, ...summary };
  deps.printDocument?.(document);
  if (path === undefined || (path === '-' && deps.printDocument)) return;
  try {
    writeSummaryJson({ stdout: deps.stdout, redact: (text) => deps.notices.redact(text) }, path, document);
  } catch (err) {
    if (summary.status === 'complete' || summary.status === 'stopped') throw err;
    deps.notices.warn(`could not write the summary to ${path}: ${(err as Error).message}`);
  }
}

/**
 * `_extra` alone, as --quiet still says it: the values no column of the file's header holds,
 * naming the export and the fields.
 */
function extraLine(s: ExportSummary): string {
  const { values, rows, members } = s.extra!;
  const state = s.stateKey === null ? '' : ` (export state "${s.stateKey}")`;
  const what = `${plural(values, 'value')} of ${plural(rows, 'row')}`;
  return `note: ${what} went to _extra in ${s.output}${state}: ${members.join(', ')} (no column of the header holds them)`;
}

/**
 * An export to stdout keeps a state only when --state-key names one, and then the same command
 * prints only what is new the next time: said the first time the key is made.
 */
function stdoutStateNote(s: ExportSummary, newState: boolean): string | undefined {
  if (s.output !== 'stdout' || s.stateKey === null || s.pending || (s.status !== 'complete' && s.status !== 'stopped'))
    return undefined;
  if (!newState) return undefined;
  return `note: export state "${s.stateKey}" keeps this position: the next run with --state-key ${s.stateKey} prints only what is new since (--full starts it over).`;
}

export function summaryLine(label: string, s: ExportSummary, asTyped: ExportRunOptions['windowAsTyped'] = {}): string {
  // Rows a run fetched again from the saved cursor (the last page of the run before, or the page an
  // interrupted run had half written) are dropped, not written twice (docs/exports.md, "The state").
  const again = s.skipped
    ? ` (${plural(s.skipped, 'row')} of the last page fetched again: already written, left out)`
    : '';
  const what =
    s.rows === 0 && s.skipped > 0 && s.status === 'complete'
      ? `nothing new since the last run${again}`
      : `${plural(s.rows, s.skipped > 0 || s.resumedAt !== undefined ? 'new row' : 'row')}${again}`;
  const resumed = s.resumedAt !== undefined ? `resumed at row ${s.resumedAt.toLocaleString('en-US')}; ` : '';
  const cut = s.cutBytes ? `; cut ${s.cutBytes} uncommitted bytes first` : '';
  const ok = s.status === 'complete' || s.status === 'stopped';
  const state =
    s.stateKey === null
      ? 'no state kept'
      : !ok
        ? `state "${s.stateKey}" keeps what was committed before`
        : s.pending
          ? `state "${s.stateKey}" pending until \`cnv export state commit ${shellWord(s.stateKey)} --run ${shellWord(s.runId ?? '')}\``
          : `state "${s.stateKey}" saved`;
  // A duration (--since 24h) says which time it was.
  const typed = [asTyped.since && `--since ${asTyped.since}`, asTyped.until && `--until ${asTyped.until}`]
    .filter(Boolean)
    .join(', ');
  // A state that continues keeps its saved window: the duration did not make it, and must not be named as if it had.
  const made = asTyped.sinceAt === undefined || s.window?.since === asTyped.sinceAt;
  const named = made ? typed : `the saved window; ${typed} was for a first run or --full`;
  const window =
    typed && s.window
      ? `; occurredAt from ${s.window.since}${s.window.until ? ` until ${s.window.until}` : ''} (${named})`
      : '';
  // Values no column holds: where they went, so a cron log shows a header that no longer fits.
  const extra = s.extra?.values ? `; ${plural(s.extra.values, 'value')} in _extra (${s.extra.members.join(', ')})` : '';
  return `${label} ${s.status}: ${resumed}${what} in ${plural(s.pages, 'page')} to ${s.output} (${duration(s.elapsedMs)}${rate(s.rows, s.elapsedMs)})${cut}${window}${extra}; ${state}; more remains: ${s.moreRemains ? 'yes' : 'no'}`;
}
