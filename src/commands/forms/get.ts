import type { Command } from 'commander';
import type { Form, FormField } from '../../endpoints/forms.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { uuidArgument } from '../../cmdutil/parse.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { resolveFormat } from '../../output/format.js';
import { outputOf } from '../../cmdutil/context-deps.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    { what: 'the form object, with fields[] as the API sends them', schema: ENDPOINTS.getForm.answer.schema() },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<formId>', 'id (UUID) of the form', uuidArgument).addHelpText(
    'after',
    `
Prints the form and its fields: type, required, hidden and, for choice fields, the options
(label and value). Field types the API adds later are printed as they come. Only tracked,
published native forms are readable: any other id exits 5 (form_not_found).

A MULTI_CHECKBOX answer is one string of the ticked option values separated by ";".

Examples:
  $ cnv forms get f1000000-0000-4000-8000-000000000001
  $ cnv forms get f1000000-0000-4000-8000-000000000001 --json | jq '.fields[] | {name, type}'`,
  );
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const form = await (
    await ctx.http()
  ).call(ENDPOINTS.getForm, { params: { formId: args[0] as string }, signal: ctx.signal });
  return { kind: 'record', data: resolveFormat(outputOf(ctx)) === 'table' ? forTable(form) : form };
}

// On a terminal: one row per field with fixed columns, options as "Label (value)" text.
function forTable(form: Form): Record<string, unknown> {
  return { ...form, fields: form.fields.map(fieldRow) };
}

function fieldRow(field: FormField): Record<string, unknown> {
  const { fieldId, name, type, required, hidden, options, ...rest } = field;
  const optionText = options
    ?.map((o) =>
      o.label === o.value || o.value === undefined ? String(o.label ?? '') : `${o.label ?? ''} (${o.value})`,
    )
    .join(', ');
  return {
    name,
    type,
    required: required ?? false,
    hidden: hidden ?? false,
    options: optionText ?? '',
    fieldId,
    ...rest,
  };
}
