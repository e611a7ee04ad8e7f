import type { Context } from '../context.js';

/** What a run did, printed on stderr at the end (a line, or JSON with --json). */
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
  done(summary: ExportSummary): void;
}

type Spinner = { text: string; stop(): void };

export async function createReporter(ctx: Context, label: string): Promise<ExportReporter> {
  const started = ctx.clock.now();
  let spinner: Spinner | undefined;
  if (ctx.showProgress()) {
    const { default: ora } = await import('ora');
    spinner = ora({
      text: `${label}: starting`, stream: ctx.io.stderr as NodeJS.WriteStream, isEnabled: true, discardStdin: false, color: ctx.globals.color ? 'cyan' : false,
    }).start();
  }
  return {
    page(rows, pages) {
      if (!spinner) return;
      const seconds = Math.max(0.001, (ctx.clock.now() - started) / 1000);
      spinner.text = `${label}: ${rows.toLocaleString('en-US')} rows, ${pages} pages, ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s`;
    },
    done(summary) {
      spinner?.stop();
      if (ctx.globals.json) ctx.info(JSON.stringify({ summary }));
      else ctx.info(summaryLine(label, summary));
    },
  };
}

export function summaryLine(label: string, s: ExportSummary): string {
  const seconds = s.elapsedMs / 1000;
  const rate = seconds > 0 ? `, ${Math.round(s.rows / seconds).toLocaleString('en-US')} rows/s` : '';
  const skipped = s.skipped ? ` (${s.skipped} already delivered, skipped)` : '';
  const cut = s.cutBytes ? `; cut ${s.cutBytes} uncommitted bytes first` : '';
  const ok = s.status === 'complete' || s.status === 'stopped';
  const state =
    s.stateKey === null ? 'no state kept'
    : !ok ? `state "${s.stateKey}" keeps what was committed before`
    : s.pending ? `state "${s.stateKey}" pending until \`cnv export state commit ${quoteKey(s.stateKey)} --run ${quoteKey(s.runId ?? '')}\``
    : `state "${s.stateKey}" saved`;
  return `${label} ${s.status}: ${s.rows.toLocaleString('en-US')} rows${skipped} in ${s.pages} pages to ${s.output} (${seconds.toFixed(1)} s${rate})${cut}; ${state}; more remains: ${s.moreRemains ? 'yes' : 'no'}`;
}

function quoteKey(key: string): string {
  return /^[\w@./:-]+$/.test(key) ? key : `'${key.replace(/'/g, `'\\''`)}'`;
}
