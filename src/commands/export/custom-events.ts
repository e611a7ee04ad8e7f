import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import {
  checkExportOptions,
  EXPORT_GLOBALS,
  exportFlags,
  exportRunOptions,
  refuseClosedStdout,
  FORMAT_HELP,
  instant,
  isDuration,
  windowTime,
} from '../../cmdutil/export-options.js';
import { commandOptions, textFlag, withBrief } from '../../cmdutil/flags.js';
import { createReporter } from '../../exporter/run-summary.js';
import { runExport } from '../../exporter/runner.js';
import type { CommandResult } from '../../output/render.js';
import { exportDepsOf, reporterDepsOf } from '../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';
import { exportDocument, exportSummary } from '../../cmdutil/run-documents.js';

/** --since and --until are normalised to UTC ISO text by their parser (`instant`), or a duration (`7d`) as typed. */
export const options = commandOptions(
  {
    since: withBrief(
      textFlag(
        '--since <ts>',
        'start of the occurredAt window, inclusive (first run of a state, or with --full): a time, a date, or a duration before now (24h, 7d)',
        instant('--since'),
      ),
      'start of the window (a time, a date, or 7d)',
    ),
    until: withBrief(
      textFlag(
        '--until <ts>',
        'end of the window, exclusive (default: open, so later runs pick up new events); a time, a date or a duration before now',
        instant('--until'),
      ),
      'end of the window, exclusive (default: open)',
    ),
    ...exportFlags('custom-events'),
  },
  {
    globals: EXPORT_GLOBALS,
    check(opts) {
      if (opts.until !== undefined && opts.since === undefined && opts.full !== true)
        throw new UsageError("--until goes with --since (it is part of the first run's window)");
      checkExportOptions(opts);
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    exportDocument(
      exportSummary().extend({
        window: z.strictObject({ since: z.string(), until: z.string().optional() }).describe('ISO times'),
      }),
    ),
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Exports custom events in occurredAt order, from --since up to (not including) --until. The first
run of a state needs --since; later runs continue from the saved cursor, so they refuse
another --since/--until unless --full starts over (a duration such as --since 7d counts back from
now, so a cron line may carry it: a state that continues keeps its saved window; the summary
says which times were used). The window is walked in segments: empty pages are
normal. CSV columns: eventId, contactId, occurredAt, createdAt, eventName, source, contactEmail,
userId, clientEventId, data (JSON), _extra.
${FORMAT_HELP}

Examples:
  $ cnv export custom-events --since 2025-01-01T00:00:00Z --out events.ndjson
  $ cnv export custom-events --out events.ndjson                   # hourly from cron: only what is new
  $ cnv export custom-events --since 2025-01-01 --until 2025-02-01 --no-state -o csv > january.csv
  $ cnv export custom-events --since 24h --no-state                 # the last day, once`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const now = ctx.clock.now();
  const since = opts.since === undefined ? undefined : windowTime('--since', opts.since, now);
  const until = opts.until === undefined ? undefined : windowTime('--until', opts.until, now);
  // (A duration counts back from the run's clock: checked here, not with the other flags.)
  if (since !== undefined && until !== undefined && until < since)
    throw new UsageError('--until: must not be before --since');
  const asTyped = (value: string | undefined) => (value !== undefined && isDuration(value) ? value : undefined);
  const windowAsTyped = { since: asTyped(opts.since), until: asTyped(opts.until), sinceAt: since };
  const runOptions = exportRunOptions(opts, 'custom-events', ctx.env, { since, until, windowAsTyped });
  refuseClosedStdout(ctx.io, runOptions.out);
  await runExport(
    exportDepsOf(ctx),
    runOptions,
    await createReporter(reporterDepsOf(ctx), 'export custom-events', runOptions),
  );
  return { kind: 'none' };
}
