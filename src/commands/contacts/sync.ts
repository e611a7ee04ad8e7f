import type { Command } from 'commander';
import type { FieldsByParent } from '../../batch/columns/field-match.js';
import { BATCH_GLOBALS, checkBatchOptions, globalRunMode } from '../../cmdutil/batch-options.js';
import type { RunMode } from '../../batch/batch-run-options.js';
import { batchDepsOf, exportDepsOf, outputOf, reporterDepsOf } from '../../cmdutil/context-deps.js';
import { z } from 'zod';
import { commandOptions, flag, switchFlag, textFlag, withBrief } from '../../cmdutil/flags.js';
import { durationMs } from '../../cmdutil/export-options.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { ledgerJob } from '../../ledger/ledger-job.js';
import { crashHookFromEnv } from '../../exporter/crash-points.js';
import type { CommandResult } from '../../output/render.js';
import { PLAN_COMPACT_AFTER, PlanOutput } from '../../sync/plan-output.js';
import { runSync, syncStateKey } from '../../sync/phases.js';
import { refreshReporter } from '../../sync/refresh-reporter.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import { contactFieldDefinitions, upsertFileSpec } from '../../cmdutil/contact-upsert-file.js';
import { FILE_ROW_FLAGS } from '../../cmdutil/contact-upsert-flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { fileRunDocument, fileRunSummary } from '../../cmdutil/run-documents.js';

export const options = commandOptions(
  {
    file: withBrief(
      textFlag(
        '--file <file>',
        'the contacts: a CSV, NDJSON or JSON file (- for stdin), read as `contacts upsert --file` reads it',
      ),
      'the contacts: a CSV, NDJSON or JSON file',
    ),
    plan: withBrief(
      switchFlag(
        '--plan',
        'send nothing: show, for each contact that would change, create or update and each value old -> new, then the counts',
      ),
      'send nothing: show each change, then the counts',
    ),
    planFormat: withBrief(
      flag(
        '--plan-format <form>',
        `the plan's table on a terminal: full (a line per changed value), compact (a line per contact, its first changes old -> new); default full up to ${PLAN_COMPACT_AFTER} contacts, compact past that`,
        z.enum(['full', 'compact']).optional(),
        { choices: ['full', 'compact'] },
      ),
      "the plan's table: full or compact",
    ),
    exitCode: withBrief(
      switchFlag(
        '--exit-code',
        'exit 9 when the file and the account differ (rows to create or update), as git diff --exit-code; with --plan, CI can assert "in sync"',
      ),
      'exit 9 when the file and the account differ',
    ),
    fullRefresh: withBrief(
      switchFlag(
        '--full-refresh',
        'read every contact of the account again (the snapshot is rebuilt), instead of only what changed since the last sync; the only way a contact deleted in the account is seen',
      ),
      'read every contact again (sees deletions)',
    ),
    fullRefreshAfter: withBrief(
      textFlag(
        '--full-refresh-after <duration>',
        'read every contact again when the last full refresh is older than this (7d, 24h, 2w): bounds how long a contact deleted in the account stays in the snapshot',
        (text) => {
          durationMs('--full-refresh-after')(text);
          return text.trim();
        },
      ),
      'full refresh when the last is older (7d)',
    ),
    keyColumn: textFlag(
      '--key-column <column>',
      "the column of the file's own id (a CRM's): a row whose email changed updates its key's contact (docs/sync.md)",
    ),
    acceptColumns: withBrief(
      switchFlag(
        '--accept-columns',
        'send a column that now names another target than at the last sync of this file (a field renamed, created or deleted in the account) where it resolves now, and remember that',
      ),
      'send moved columns where they resolve now',
    ),
    ...FILE_ROW_FLAGS,
  },
  {
    globals: ['dryRun', ...BATCH_GLOBALS],
    check(opts) {
      if (opts.file === undefined)
        throw new UsageError(
          '--file: required (the contacts to sync)',
          'e.g. cnv contacts sync --file contacts.csv --plan',
          'missing_file',
        );
      if (opts.planFormat !== undefined && !opts.plan)
        throw new UsageError('--plan-format: goes only with --plan', undefined, 'conflicting_options');
      if (opts.plan && opts.report === '-')
        throw new UsageError(
          '--report -: not with --plan, which prints the plan on stdout',
          'write the report to a file',
        );
      if (opts.plan && opts.summaryJson === '-')
        throw new UsageError(
          '--summary-json -: not with --plan, which prints the plan on stdout',
          'write the summary to a file',
        );
      checkBatchOptions(opts);
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const counts = {
    create: z.number(),
    update: z.number(),
    unchanged: z.number(),
    invalid: z.number(),
    unsure: z.number(),
    unsureReasons: z.record(z.string().describe('REASON'), z.number()),
  };
  const snapshot = z.strictObject({
    contacts: z.number(),
    fetchedRows: z.number(),
    pages: z.number(),
    full: z.boolean(),
    reason: z.string().nullable(),
    lastFullRefresh: z.string().nullable().describe('when the last full refresh started (ISO)'),
    stateKey: z.string().nullable(),
    elapsedMs: z.number(),
  });
  const change = z.strictObject({
    type: z.literal('change'),
    line: z.number(),
    action: z.enum(['create', 'update']),
    contact: z.string(),
    cnvContactId: z.string().nullable(),
    changes: z.array(z.strictObject({ field: z.string(), old: z.unknown(), new: z.unknown() })),
    unsure: z.string().nullable(),
  });
  // Its members are described in docs/sync.md ("A key column"): the help stays short.
  const ledger = z.strictObject({
    job: z.string(),
    trusted: z.boolean(),
    matched: z.number(),
    newEmail: z.number(),
    recorded: z.number(),
    gone: z.number(),
  });
  return {
    documents: [
      fileRunDocument(
        undefined,
        fileRunSummary().extend({
          sync: z.strictObject({
            ...counts,
            sent: z.number().describe('rows sent and applied: created or updated; 0 with --plan or --dry-run'),
            snapshot: snapshot.nullable(),
          }),
          ledger: ledger.nullable().describe('with --key-column'),
        }),
      ),
      {
        when: 'with --plan',
        lines: true,
        what: 'a change line per contact that would change, then a summary line:',
        schema: z.union([change, z.strictObject({ type: z.literal('summary'), ...counts })]),
        note: '(-q applies to each line)',
      },
    ],
  };
};

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Sends only the rows that would change something in the account. Before any row is sent, a
local snapshot of the account's contacts is refreshed from the contacts export (the first run
reads every contact, 5,000 a request; later runs only what changed since the last one), and
each row of the file is compared with it: a new contact, or a status, email (with
cnvContactId) or field value that differs, is sent as \`contacts upsert --file\` sends it; a row
that changes nothing is "unchanged" in the report, and costs no request. Columns the file does
not have are neither compared nor sent.

Skip only when sure: values are compared as the API stores them (by each field's data type,
every digit). A row is sent anyway when cnv cannot be sure (a label two fields share, a field
created after the contact was fetched, a value the export shows otherwise, companyFields,
several contacts with one email updated at the same time, an earlier row of the same
contact or email); the summary counts them by reason. A change made in the account since the
last sync (drift) is seen by the refresh, and the file's value is sent again; a contact deleted
in the account is not (the export never lists removed contacts): --full-refresh sees it, and
--full-refresh-after 7d makes a recurring sync refresh fully once its last full refresh is older.

Columns are remembered: each run compares how the file's columns resolve with the last sync
of the same file (by path). A column that now names another target while the flags say the
same of it (a field relabelled, created or deleted in the account) refuses the run before
anything is sent: exit 2, one line per column ("Employees": fields.contactEmployees ->
companyFields.employees). --accept-columns sends it where it resolves now, and remembers that;
a --map by key (--map 'Employees=fields.contactEmployees') never moves.

--dry-run refreshes the snapshot, then prints the body of each row that would be sent.
--plan sends nothing: on a terminal the counts (Plan: ...), then a table (one line per changed
value; "update?" when sent because unsure; a contact shown by its email when the row has one;
past ${PLAN_COMPACT_AFTER} contacts one line per contact with its first changes old -> new:
--plan-format full|compact chooses; a table longer than the terminal goes through the pager),
else NDJSON: {"type":"change","line","action","contact","cnvContactId",
"changes":[{"field","old","new"}],"unsure"} per contact that would change, then
{"type":"summary","create","update","unchanged","invalid","unsure","unsureReasons"}. -q
applies to each line. The summary says what was sent and what was not ("50 sent (updated 50),
4950 unchanged"); without --plan, --json or -q prints the run's summary document on stdout
(with its "sync" member: the counts, "sent", and what the refresh read). --exit-code: exit 9
when rows would be (or were) sent.

The snapshot is an export state (\`cnv export state list\` shows it, "<account>/contacts-sync"), its file
under the config directory's sync/ (mode 0600); one sync per account runs at a time (exit 7).
A damaged snapshot is never trusted: it is rebuilt by a full refresh, with a note. Needs the
contacts export (403 export_not_enabled: exit 4; use \`contacts upsert --file\` there).
Report statuses: created, updated, unchanged, failed, invalid, skipped (valid with --plan or
--dry-run). See docs/sync.md.

Examples:
  $ cnv contacts sync --file contacts.csv --plan
  $ cnv contacts sync --file contacts.csv --plan --plan-format compact
  $ cnv contacts sync --file contacts.csv --report sync-report.csv
  $ cnv contacts sync --file nightly.csv --full-refresh-after 7d --quiet     # cron: deletions seen within a week
  $ cnv contacts sync --file warehouse.ndjson --plan --exit-code --quiet || echo "account drifted"
  $ cnv contacts sync --file hubspot.csv --map-file docs/maps/hubspot.map --plan --json -q 'changes[].field'
  $ cnv contacts sync --file nightly.csv --accept-columns --plan
  $ cnv contacts sync --file crm.csv --key-column crm_id    # a person's new email updates the same contact`,
  );
}

export async function run(given: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const file = opts.file!;
  const plan = opts.plan === true;
  // --dry-run sends no upsert: the file run's own dry run (which prints each body instead) sees to
  // that. The snapshot's refresh is a read the API spells POST, which the HTTP client's dry run
  // would print and stop at, having compared nothing: so the layers below get the context with a
  // client that never dry-runs, asked for explicitly (the given context is left as it is).
  const mode: RunMode = plan ? 'plan' : globalRunMode(given.globals);
  const ctx: Context = {
    ...given,
    globals: { ...given.globals, dryRun: false },
    http: () => given.http({ dryRun: false }),
  };
  const spec = await upsertFileSpec(ctx, { ...opts, file }, 'contacts sync', mode);
  const keyColumn = opts.keyColumn?.trim() || undefined;
  // The key column is sent only when it names something a contact takes (a field, a --map).
  const base = { ...spec, options: { ...spec.options, columns: { ...spec.options.columns, keyColumn } } };
  // Sure or not depends on the field list as it is now: read afresh once, for the columns and the comparison.
  let definitions: Promise<FieldsByParent | undefined> | undefined;
  const fresh = () => (definitions ??= contactFieldDefinitions(ctx, true, false));
  const credentials = await ctx.credentials();
  const output = plan ? await PlanOutput.open(outputOf(ctx), opts.planFormat) : undefined;
  // With --plan, stdout is the plan (--json and -q apply to its lines): no summary document after it.
  const batch = plan ? { ...batchDepsOf(ctx), printDocument: undefined } : batchDepsOf(ctx);
  const snapshot = { ...exportDepsOf(ctx), reporter: await refreshReporter(reporterDepsOf(ctx)) };
  return runSync(
    { batch, snapshot },
    { ...base, columns: { ...base.columns, definitions: () => fresh() } },
    {
      key: syncStateKey(credentials.baseUrl, credentials.apiKey),
      fullRefresh: opts.fullRefresh === true,
      ...(opts.fullRefreshAfter
        ? { staleAfter: { ms: durationMs('--full-refresh-after')(opts.fullRefreshAfter), text: opts.fullRefreshAfter } }
        : {}),
      acceptColumns: opts.acceptColumns === true,
      rememberColumns: mode === 'send',
      crash: crashHookFromEnv(ctx.env),
      exitCode: opts.exitCode === true,
      plan: output,
      fields: async () => (await fresh())?.get('fields'),
      ...(keyColumn ? { keyJob: ledgerJob(credentials, 'contacts sync', undefined, keyColumn) } : {}),
    },
  ).catch((err: unknown) => Promise.reject(notEnabled(err)));
}

/** A business without the contacts export cannot sync: say what it can do instead. */
function notEnabled(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.code !== 'export_not_enabled') return err;
  return new ApiError(
    err.status,
    err.code,
    `contacts sync reads the account through the contacts export, which this account does not have (${err.message})`,
    'send every row with `cnv contacts upsert --file FILE` instead (one request per row), or ask the provider to enable the export',
  );
}
