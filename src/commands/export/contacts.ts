import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import {
  checkExportOptions,
  EXPORT_GLOBALS,
  exportFlags,
  exportRunOptions,
  FORMAT_HELP,
} from '../../cmdutil/export-options.js';
import { z } from 'zod';
import { commandOptions, flag } from '../../cmdutil/flags.js';
import { caseInsensitiveChoice } from '../../cmdutil/parse.js';
import { UsageError } from '../../errors.js';
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
    fieldsBy: flag(
      '--fields-by <label|key>',
      "NDJSON: key each row's fields by field label, as the API's export does (default), or by field key, as `contacts get` does (members no one field has go to unresolvedFields)",
      z.enum(FIELDS_BY).optional(),
      { parse: caseInsensitiveChoice(FIELDS_BY) },
    ),
  },
  {
    globals: EXPORT_GLOBALS,
    check(opts) {
      checkExportOptions(opts);
      if (opts.fieldsBy === 'key' && exportRunOptions(opts, 'contacts', {}).format === 'csv') {
        throw new UsageError(
          '--fields-by key: NDJSON only; CSV has a column per field label (--columns picks them)',
          'use -o ndjson, or leave --fields-by out',
        );
      }
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
that share a label), and _extra (JSON of anything else).
NDJSON rows are the API's: their fields object is keyed by field LABEL ({"City": "Oslo"}),
where \`contacts get\` keys it by field key ({"city": "Oslo"}). --fields-by key writes the keys
(from the field definitions, read when the run starts): a member that no one field has (a
label two fields share, a field made since) is kept, under its label, in unresolvedFields.
${FORMAT_HELP}

Examples:
  $ cnv export contacts --out contacts.csv
  $ cnv export contacts -o ndjson > contacts.ndjson
  $ cnv export contacts --out contacts.csv --columns 'id,email,updatedAt,First name'
  $ cnv export contacts --out contacts.ndjson --fields-by key
  $ set -o pipefail; run=$(date +%s)-$$
  $ cnv export contacts --state-key crm --defer-commit --run $run | load-into-crm && cnv export state commit crm --run $run`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const runOptions = { ...exportRunOptions(opts, 'contacts', ctx.env), fieldsBy: opts.fieldsBy };
  await runExport(
    exportDepsOf(ctx),
    runOptions,
    await createReporter(reporterDepsOf(ctx), 'export contacts', runOptions),
  );
  return { kind: 'none' };
}
