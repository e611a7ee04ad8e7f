import type { Command } from 'commander';
import { allFieldPages, listFields, RELATIONSHIP_OBJECT_TYPES, type ListFieldsQuery } from '../../api/fields.js';
import { uuidSchema } from '../../cli/identifier.js';
import { caseInsensitiveChoice, integer } from '../../cli/parse.js';
import type { CommandInput } from '../../cli/registry.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { resolveFormat } from '../../io/format.js';
import { createListWriter } from '../../io/list-writer.js';
import type { CommandResult } from '../../io/render.js';

/** CSV columns (JSON and NDJSON print each item as the API sent it). */
export const FIELD_COLUMNS = [
  'key', 'label', 'objectType', 'dataType', 'readOnly', 'customObjectId',
  'relationship.objectType', 'relationship.customObjectId', 'relationship.pairedKey', 'relationship.reverse',
];
// A terminal table keeps to what fits on a screen.
const TABLE_COLUMNS = ['key', 'label', 'objectType', 'dataType', 'readOnly', 'relationship.objectType'];

export function configure(cmd: Command): void {
  cmd
    .option('--object-type <type>', `only fields of this object: ${RELATIONSHIP_OBJECT_TYPES.join(', ')} (any case)`, caseInsensitiveChoice(RELATIONSHIP_OBJECT_TYPES))
    .option('--custom-object-id <uuid>', 'only the fields of this custom object (implies --object-type CUSTOM_OBJECT)')
    .option('--limit <n>', 'page size (the API clamps it)', integer(1))
    .option('--cursor <cursor>', 'continue from the cursor a previous page printed')
    .option('--all', 'walk every page (streamed)')
    .addHelpText('after', `
Without --all one page is printed and, when more follow, the cursor of the next page goes to
stderr. Output: a table on a terminal, else JSON; -o ndjson|csv|json|table.

Examples:
  $ cnv fields list --object-type contact
  $ cnv fields list --all -o csv > fields.csv
  $ cnv fields list --custom-object-id c0000000-0000-4000-8000-000000000001 --json | jq '.[].key'`);
}

/** The list query from the flags. */
export function listQuery(opts: Record<string, unknown>): ListFieldsQuery {
  const query: ListFieldsQuery = {};
  if (opts.objectType !== undefined) query.objectType = String(opts.objectType);
  if (opts.customObjectId !== undefined) {
    const id = uuidSchema.safeParse(String(opts.customObjectId).trim());
    if (!id.success) throw new UsageError(`--custom-object-id: ${id.error.issues[0].message}, got "${opts.customObjectId}"`);
    if (query.objectType !== undefined && query.objectType !== 'CUSTOM_OBJECT') {
      throw new UsageError('--custom-object-id: goes only with --object-type CUSTOM_OBJECT');
    }
    query.objectType = 'CUSTOM_OBJECT';
    query.customObjectId = id.data;
  }
  if (opts.limit !== undefined) query.limit = opts.limit as number;
  if (opts.cursor !== undefined) query.cursor = String(opts.cursor);
  return query;
}

export async function run(ctx: Context, { opts }: CommandInput): Promise<CommandResult> {
  const query = listQuery(opts);
  const columns = resolveFormat(ctx) === 'table' ? TABLE_COLUMNS : FIELD_COLUMNS;
  const http = await ctx.http();
  if (!opts.all) {
    const page = await listFields(http, query, ctx.signal);
    if (page.nextCursor) ctx.info(`more fields follow: add --cursor ${page.nextCursor} (or --all)`);
    return { kind: 'list', rows: page.fields, columns };
  }
  const writer = await createListWriter(ctx, columns);
  for await (const fields of allFieldPages(http, query, ctx.signal)) {
    for (const field of fields) await writer.write(field);
  }
  await writer.end();
  return { kind: 'none' };
}
