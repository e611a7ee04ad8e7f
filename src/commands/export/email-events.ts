import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { z } from 'zod';
import { EMAIL_EVENT_TYPES, type EmailEventType } from '../../endpoints/exports.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { didYouMean, HINT_MARK } from '../../cmdutil/suggest.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { runEmailTypes, withTypeLines } from '../../exporter/multi-type.js';
import {
  checkExportOptions,
  EXPORT_GLOBALS,
  exportFlags,
  exportRunOptions,
  refuseClosedStdout,
  FORMAT_HELP,
  type ExportOptionValues,
} from '../../cmdutil/export-options.js';
import { commandOptions, flag, textFlag, withBrief } from '../../cmdutil/flags.js';
import { runTypesToDir } from '../../exporter/per-type-files.js';
import { emailTypesLabel } from '../../exporter/plan.js';
import { createReporter } from '../../exporter/run-summary.js';
import { runExport } from '../../exporter/runner.js';
import type { CommandResult } from '../../output/render.js';
import { exportDepsOf, noticesOf, reporterDepsOf } from '../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { exportDocument, exportSummary, typeOutcome } from '../../cmdutil/run-documents.js';

/** --type is parsed by `emailTypes` into the API's types, in its order. */
export const options = commandOptions(
  {
    type: withBrief(
      flag(
        '--type <types>',
        `email event type, any case: all, or one or a comma list of ${EMAIL_EVENT_TYPES.join(', ')}`,
        z.array(z.enum(EMAIL_EVENT_TYPES)).optional(),
        { parse: emailTypes },
      ),
      'email event type(s): all, or EMAIL_OPEN,...',
    ),
    outDir: withBrief(
      textFlag(
        '--out-dir <dir>',
        'several types: one file per type in DIR (DIR/EMAIL_OPEN.ndjson, .csv with -o csv, .gz with --compress gzip), each with its own state',
      ),
      'several types: one file per type in DIR',
    ),
    ...exportFlags('email-events'),
  },
  { globals: EXPORT_GLOBALS, check: checkTypes },
);

/** --type, and the flags that go with one type, several, or --out-dir; then the export flags' rules. */
function checkTypes(opts: ExportOptionValues & { type?: readonly EmailEventType[]; outDir?: string }): void {
  if (opts.type === undefined)
    throw new UsageError(`--type is required: all, or one or a comma list of ${EMAIL_EVENT_TYPES.join(', ')}`);
  if (opts.outDir !== undefined) {
    if (opts.out !== undefined)
      throw new UsageError('--out and --out-dir do not go together: one file for every type, or one file per type');
    if (opts.stateKey !== undefined)
      throw new UsageError(
        '--state-key: with --out-dir each type keeps the default state of its own file',
        'leave --state-key out',
      );
    if (opts.deferCommit)
      throw new UsageError(
        '--defer-commit is for stdout pipelines; --out-dir files are committed page by page already',
      );
  } else if (opts.type.length > 1) {
    const label = emailTypesLabel(opts.type);
    for (const [flag, given] of [
      ['--max-pages', opts.maxPages],
      ['--max-rows', opts.maxRows],
      ['--defer-commit', opts.deferCommit],
    ] as const) {
      if (given !== undefined && given !== false)
        throw new UsageError(
          `${flag} applies to one type at a time; --type ${label} runs every type to its end (or use --out-dir)`,
        );
    }
  }
  checkExportOptions(opts);
}

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const types = (outcome: z.ZodType) => z.record(z.string().describe('TYPE'), outcome).describe('several types');
  const outDir = z.strictObject({
    command: z.string(),
    status: z.enum(['complete', 'failed', 'interrupted']),
    rows: z.number(),
    pages: z.number(),
    elapsedMs: z.number(),
    outDir: z.string(),
    types: z.record(
      z.string().describe('TYPE'),
      typeOutcome().extend({ output: z.string(), stateKey: z.string().nullable() }),
    ),
  });
  return {
    documents: [
      exportDocument(exportSummary().extend({ types: types(typeOutcome()).optional() })),
      { when: 'with --out-dir', schema: outDir },
    ],
  };
};

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Exports the email events of one type, several (a comma list) or all nine (--type all), each
type in occurredAt order from its own cursor. Several types run concurrently (within the one
rate limit) into one output (rows carry eventType; ONE state holds every type's cursor, committed
with the file's length after each page) or, with --out-dir, into one file per type. A type
that fails does not lose the others' progress; the summary lists how each type ended and the
exit code is the first failed type's (7: try again later). CSV columns: eventId, contactId,
occurredAt, eventType, sourceType, sourceId, emailId, emailName, sentEmailId, isBot, link,
topicIds (JSON), bounceType, errorMessage, _extra.
${FORMAT_HELP}

Examples:
  $ cnv export email-events --type email_open --out opens.ndjson
  $ cnv export email-events --type all --out email-events.ndjson.gz
  $ cnv export email-events --type EMAIL_OPEN,EMAIL_CLICK -o csv --out-dir exports/`,
  );
}

/** --type: `all`, or one type or a comma list (any case), in the API's order without repeats. */
function emailTypes(text: string): EmailEventType[] {
  const asked = text
    .split(',')
    .map((t) => t.trim().toUpperCase())
    .filter((t) => t !== '');
  if (asked.length === 1 && asked[0] === 'ALL') return [...EMAIL_EVENT_TYPES];
  const unknown = asked.find((t) => !(EMAIL_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined || asked.length === 0) {
    const hint = unknown === undefined ? undefined : didYouMean(unknown, EMAIL_EVENT_TYPES);
    throw new InvalidArgumentError(
      `expected all, or one or a comma list of ${EMAIL_EVENT_TYPES.join(', ')} (any case), got ${JSON.stringify(unknown ?? text)}${hint ? HINT_MARK + hint : ''}`,
    );
  }
  return EMAIL_EVENT_TYPES.filter((t) => asked.includes(t));
}
Object.assign(emailTypes, { choices: ['all', ...EMAIL_EVENT_TYPES] });

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const types = opts.type!;
  const outDir = opts.outDir;
  if (outDir !== undefined) {
    const runOptions = exportRunOptions(opts, 'email-events', ctx.env);
    if (ctx.globals.dryRun) {
      await runExport(
        exportDepsOf(ctx),
        { ...runOptions, emailType: types[0] },
        await createReporter(reporterDepsOf(ctx), `export email-events ${types[0]}`, runOptions),
      );
      return { kind: 'none' };
    }
    const { printDocument } = reporterDepsOf(ctx);
    await runTypesToDir(
      exportDepsOf(ctx),
      { printDocument, label: `export email-events ${emailTypesLabel(types)}` },
      { base: runOptions, types, dir: resolve(outDir) },
    );
    return { kind: 'none' };
  }
  if (types.length === 1) {
    const runOptions = exportRunOptions(opts, 'email-events', ctx.env, { emailType: types[0] });
    refuseClosedStdout(ctx.io, runOptions.out);
    await runExport(
      exportDepsOf(ctx),
      runOptions,
      await createReporter(reporterDepsOf(ctx), `export email-events ${types[0]}`, runOptions),
    );
    return { kind: 'none' };
  }
  const label = emailTypesLabel(types);
  const runOptions = { ...exportRunOptions(opts, 'email-events', ctx.env), emailTypes: types };
  refuseClosedStdout(ctx.io, runOptions.out);
  await runEmailTypes(
    exportDepsOf(ctx),
    runOptions,
    withTypeLines(
      noticesOf(ctx),
      await createReporter(reporterDepsOf(ctx), `export email-events ${label}`, runOptions),
    ),
  );
  return { kind: 'none' };
}
