import type { Command } from 'commander';
import type { CommandInput } from '../contract.js';
import type { Context } from '../../context.js';
import { checkExportOptions, EXPORT_GLOBALS, exportFlags, exportRunOptions, FORMAT_HELP } from '../../cmdutil/export-options.js';
import { commandOptions } from '../../cmdutil/flags.js';
import { createReporter } from '../../exports/report.js';
import { runExport } from '../../exports/runner.js';
import type { CommandResult } from '../../io/render.js';
import { exportDepsOf, reporterDepsOf } from '../../cmdutil/deps.js';

export const options = commandOptions(exportFlags('contacts'), { globals: EXPORT_GLOBALS, check: checkExportOptions });

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
Exports contacts in updatedAt order. The first run exports them all; each later run exports
only the contacts created or updated since (the state keeps the last cursor). Into a file every
row lands exactly once, across crashes, kills and resumed runs, and only into the file the
state committed to; each file (and stdout) has its own default state (see docs/exports.md).
CSV columns: id, sfdcLeadId, sfdcContactId, sfdcAccountId, email, subscriptionStatus,
createdAt, updatedAt, one column per contact field (its label; "Label (key)" for fields
that share a label), and _extra (JSON of anything else).
${FORMAT_HELP}

Examples:
  $ cnv export contacts --out contacts.csv
  $ cnv export contacts -o ndjson > contacts.ndjson
  $ cnv export contacts --out contacts.csv --columns 'id,email,updatedAt,First name'
  $ set -o pipefail; run=$(date +%s)-$$
  $ cnv export contacts --state-key crm --defer-commit --run $run | load-into-crm && cnv export state commit crm --run $run`);
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const runOptions = exportRunOptions(opts, 'contacts', ctx.env);
  await runExport(exportDepsOf(ctx), runOptions, await createReporter(reporterDepsOf(ctx), 'export contacts', runOptions));
  return { kind: 'none' };
}
