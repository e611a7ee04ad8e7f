import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailEventType } from '../endpoints/exports.js';
import { LocalFileError } from '../errors.js';
import type { Notices } from '../output/notices.js';
import type { ExportDeps } from './export-deps.js';
import { typesFailed } from './multi-type.js';
import type { ExportRunOptions } from './export-run-options.js';
import { summaryLine, type ExportReporter, type ExportSummary, type TypeOutcome } from './run-summary.js';
import { writeSummaryJson } from '../output/summary-json.js';
import { runExport } from './runner.js';

/** The file of one type in --out-dir: `DIR/EMAIL_OPEN.ndjson`, `.csv`, with `.gz` for gzip. */
function typeFileName(type: EmailEventType, opts: Pick<ExportRunOptions, 'format' | 'compress'>): string {
  return `${type}.${opts.format}${opts.compress === 'gzip' ? '.gz' : ''}`;
}

/** How the run's summary goes out: the --json document on stdout, the --summary-json file. */
interface DirSummary {
  printDocument?: (document: Record<string, unknown>) => void;
  label: string;
}

/**
 * `--out-dir DIR`: one file per type, each its own export with its own state (the default key
 * of its file), run concurrently under the one rate limiter. Every type's exactly-once file
 * protocol is the single-type one; a type that fails leaves the others' files and states as
 * they completed. Each type prints its summary line; the run's document (`types`: how each
 * ended, into which file) goes to --json and --summary-json; the run fails if one type did.
 */
export async function runTypesToDir(
  deps: ExportDeps,
  out: DirSummary,
  { base, types, dir }: { base: ExportRunOptions; types: readonly EmailEventType[]; dir: string },
): Promise<void> {
  const started = deps.clock.now();
  const outcomes: Record<string, TypeOutcome & { output: string; stateKey: string | null }> = {};
  const failures = new Map<string, unknown>();
  const document = (status: string) => ({
    command: out.label,
    status,
    rows: Object.values(outcomes).reduce((n, o) => n + o.rows, 0),
    pages: Object.values(outcomes).reduce((n, o) => n + o.pages, 0),
    elapsedMs: deps.clock.now() - started,
    outDir: dir,
    types: outcomes,
  });
  try {
    await mkdir(dir, { recursive: true }).catch((err) =>
      Promise.reject(LocalFileError.from(err, 'output directory', dir) ?? err),
    );
    await Promise.all(
      types.map(async (type) => {
        const output = join(dir, typeFileName(type, base));
        outcomes[type] = { status: 'failed', rows: 0, pages: 0, output, stateKey: null };
        const reporter = typeReporter(deps.notices, `export email-events ${type}`, (s) => {
          outcomes[type] = {
            status: s.status === 'complete' ? 'complete' : s.status === 'stopped' ? 'stopped' : 'failed',
            rows: s.rows,
            pages: s.pages,
            output,
            stateKey: s.stateKey,
          };
        });
        try {
          await runExport(
            deps,
            { ...base, emailType: type, emailTypes: undefined, out: output, summaryJson: undefined },
            reporter,
          );
        } catch (err) {
          failures.set(type, err);
          outcomes[type] = {
            ...outcomes[type],
            status: 'failed',
            error: deps.notices.redact(err instanceof Error ? err.message : String(err)),
          };
        }
      }),
    );
  } catch (err) {
    summarise(deps, out, base.summaryJson, document(deps.signal.aborted ? 'interrupted' : 'failed'));
    throw err;
  }
  const failed = types.filter((t) => outcomes[t].status === 'failed');
  summarise(
    deps,
    out,
    base.summaryJson,
    document(deps.signal.aborted ? 'interrupted' : failed.length > 0 ? 'failed' : 'complete'),
  );
  if (deps.signal.aborted) throw deps.signal.reason;
  if (failed.length > 0) throw typesFailed(types, outcomes, failures.get(failed[0]));
}

/** The run's document: on stdout (--json, -q) and into --summary-json (once when both name stdout). */
function summarise(
  deps: ExportDeps,
  out: DirSummary,
  path: string | undefined,
  document: Record<string, unknown>,
): void {
  out.printDocument?.(document);
  if (path === undefined || (path === '-' && out.printDocument)) return;
  try {
    writeSummaryJson({ stdout: deps.stdout, redact: (text) => deps.notices.redact(text) }, path, document);
  } catch (err) {
    if (document.status === 'complete') throw err;
    deps.notices.warn(`could not write the summary to ${path}: ${(err as Error).message}`);
  }
}

/** Each type's summary line as it ends; no spinner, as several run at once. */
function typeReporter(
  notices: Pick<Notices, 'info'>,
  label: string,
  ended: (s: ExportSummary) => void,
): ExportReporter {
  return {
    page() {},
    done(summary) {
      ended(summary);
      notices.info(summaryLine(label, summary));
    },
  };
}
