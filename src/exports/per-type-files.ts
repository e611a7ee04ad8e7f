import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailEventType } from '../api/exports.js';
import { LocalFileError } from '../errors.js';
import type { Notices } from '../io/notices.js';
import type { ExportDeps } from './deps.js';
import { typesFailed } from './multi-type.js';
import type { ExportRunOptions } from './run-options.js';
import { summaryLine, type ExportReporter, type ExportSummary, type TypeOutcome } from './report.js';
import { runExport } from './runner.js';

/** The file of one type in --out-dir: `DIR/EMAIL_OPEN.ndjson`, `.csv`, with `.gz` for gzip. */
function typeFileName(type: EmailEventType, opts: Pick<ExportRunOptions, 'format' | 'compress'>): string {
  return `${type}.${opts.format}${opts.compress === 'gzip' ? '.gz' : ''}`;
}

/**
 * `--out-dir DIR`: one file per type, each its own export with its own state (the default key
 * of its file), run concurrently under the one rate limiter. Every type's exactly-once file
 * protocol is the single-type one; a type that fails leaves the others' files and states as
 * they completed. Each type prints its summary (`json`: as JSON); the run fails if one type did.
 */
export async function runTypesToDir(deps: ExportDeps, json: boolean, base: ExportRunOptions, types: readonly EmailEventType[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((err) => Promise.reject(LocalFileError.from(err, 'output directory', dir) ?? err));
  const outcomes: Record<string, TypeOutcome> = {};
  const failures = new Map<string, unknown>();
  await Promise.all(types.map(async (type) => {
    const reporter = typeReporter({ json, notices: deps.notices }, `export email-events ${type}`, (s) => {
      outcomes[type] = { status: s.status === 'complete' ? 'complete' : s.status === 'stopped' ? 'stopped' : 'failed', rows: s.rows, pages: s.pages };
    });
    try {
      await runExport(deps, { ...base, emailType: type, emailTypes: undefined, out: join(dir, typeFileName(type, base)) }, reporter);
    } catch (err) {
      failures.set(type, err);
      outcomes[type] = { ...(outcomes[type] ?? { rows: 0, pages: 0 }), status: 'failed', error: deps.notices.redact(err instanceof Error ? err.message : String(err)) };
    }
  }));
  if (deps.signal.aborted) throw deps.signal.reason;
  const failed = types.filter((t) => outcomes[t].status === 'failed');
  if (failed.length > 0) throw typesFailed(types, outcomes, failures.get(failed[0]));
}

/** Each type's summary line (or JSON) as it ends; no spinner, as several run at once. */
function typeReporter(to: { json: boolean; notices: Pick<Notices, 'info'> }, label: string, ended: (s: ExportSummary) => void): ExportReporter {
  return {
    page() {},
    done(summary) {
      ended(summary);
      if (to.json) to.notices.info(JSON.stringify({ summary: { ...summary, emailType: label.split(' ').at(-1) } }));
      else to.notices.info(summaryLine(label, summary));
    },
  };
}
