import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import {
  checkExportOptions,
  EXPORT_GLOBALS,
  exportFlags,
  exportRunOptions,
  refuseClosedStdout,
  FORMAT_HELP,
} from '../../cmdutil/export-options.js';
import { z } from 'zod';
import { commandOptions, flag, withBrief } from '../../cmdutil/flags.js';
import { caseInsensitiveChoice } from '../../cmdutil/parse.js';
import { createReporter } from '../../exporter/run-summary.js';
import { runExport } from '../../exporter/runner.js';
import type { CommandResult } from '../../output/render.js';
import { exportDepsOf, reporterDepsOf } from '../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { exportDocument, exportSummary } from '../../cmdutil/run-documents.js';

const FIELDS_BY = ['label', 'key'] as const;

export const options = commandOptions(
  {
    ...exportFlags('contacts'),
    fieldsBy: withBrief(
      flag(
        '--fields-by <label|key>',
        "name each row's fields by field label, as the API's export does (default), or by field key, as `contacts get` does: NDJSON members (those no one field has go to unresolvedFields), CSV columns; without it, a continuing export follows what its state recorded",
        z.enum(FIELDS_BY).optional(),
        { parse: caseInsensitiveChoice(FIELDS_BY) },
      ),
      'name fields by label (default) or by key',
    ),
  },
  {
    globals: EXPORT_GLOBALS,
    check(opts) {
      checkExportOptions(opts);
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({ documents: [exportDocument(exportSummary())] });

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Exports contacts in updatedAt order. The first run exports them all; each later run exports
only the contacts created or updated since (the state keeps the last cursor). Into a file every
row lands exactly once, across crashes, kills and resumed runs, and only into the file the
state committed to; each file (and stdout) has its own default state (see docs/exports.md).
CSV columns: id, sfdcLeadId, sfdcContactId, sfdcAccountId, email, subscriptionStatus,
createdAt, updatedAt, one column per contact field (its label; "Label (key)" for fields
that share a label; its key with --fields-by key), and _extra (JSON of anything else).
NDJSON rows are the API's: their fields object is keyed by field LABEL ({"City": "Oslo"}),
where \`contacts get\` keys it by field key ({"city": "Oslo"}). --fields-by key writes the keys
(from the field definitions, read when the run starts): a member that no one field has (a
label two fields share, a field made since) is kept, under its label, in unresolvedFields.
A file keeps its --fields-by: a later run without the flag follows it.
${FORMAT_HELP}

Examples:
  $ cnv export contacts --out contacts.csv
  $ cnv export contacts -o ndjson > contacts.ndjson
  $ cnv export contacts --out contacts.csv --columns 'id,email,updatedAt,First name'
  $ cnv export contacts --out contacts.ndjson --fields-by key
  $ cnv export contacts --out contacts.csv --fields-by key     # a header of field keys, stable across renames
  $ set -o pipefail; run=$(date +%s)-$$
  $ cnv export contacts --state-key crm --defer-commit --run $run | load-into-crm && cnv export state commit crm --run $run`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const runOptions = { ...exportRunOptions(opts, 'contacts', ctx.env), fieldsBy: opts.fieldsBy, watchFields: true };
  refuseClosedStdout(ctx.io, runOptions.out);
  await runExport(
    exportDepsOf(ctx),
    runOptions,
    await createReporter(reporterDepsOf(ctx), 'export contacts', runOptions),
  );
  return { kind: 'none' };
}
