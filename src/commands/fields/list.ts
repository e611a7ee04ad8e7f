import type { Command } from 'commander';
import { z } from 'zod';
import {
  isFieldOfCustomObject,
  RELATIONSHIP_OBJECT_TYPES,
  type FieldDefinition,
  type ListFieldsQuery,
} from '../../endpoints/fields.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { uuidSchema } from '../../endpoints/identifiers.js';
import { chosenColumns, columnsFlag, type ListColumns } from '../../cmdutil/list-fields-flag.js';
import { checkPaging, listPages, PAGING_FLAGS } from '../../cmdutil/paging-option.js';
import { caseInsensitiveChoice, pageSize } from '../../cmdutil/parse.js';
import { commandOptions, flag, numberFlag, textFlag, type ValuesOf, withBrief } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

/** CSV columns, and the table's default few (JSON and NDJSON print each item as the API sent it). */
const FIELD_COLUMNS: ListColumns = {
  all: [
    'key',
    'label',
    'objectType',
    'dataType',
    'readOnly',
    'customObjectId',
    'relationship.objectType',
    'relationship.customObjectId',
    'relationship.pairedKey',
    'relationship.reverse',
  ],
  table: ['key', 'label', 'objectType', 'dataType', 'readOnly', 'relationship.objectType'],
};

export const options = commandOptions(
  {
    ...columnsFlag(FIELD_COLUMNS),
    objectType: withBrief(
      flag(
        '--object-type <type>',
        `only fields of this object: ${RELATIONSHIP_OBJECT_TYPES.join(', ')} (any case)`,
        z.enum(RELATIONSHIP_OBJECT_TYPES).optional(),
        {
          parse: caseInsensitiveChoice(RELATIONSHIP_OBJECT_TYPES),
        },
      ),
      'only fields of this object type (CONTACT...)',
    ),
    customObjectId: withBrief(
      textFlag(
        '--custom-object-id <uuid>',
        'only the fields of this custom object (implies --object-type CUSTOM_OBJECT)',
      ),
      'only the fields of this custom object',
    ),
    // The spec does not show List fields' maximum: the API clamps the top.
    limit: withBrief(
      numberFlag(
        '--limit <n>',
        'page size, at least 1 (smaller values are clamped; the API clamps the top)',
        pageSize(1),
      ),
      'page size, at least 1',
    ),
    cursor: textFlag('--cursor <cursor>', 'continue from the cursor a previous page printed'),
    ...PAGING_FLAGS,
  },
  {
    // --custom-object-id with --object-type (listQuery), then the paging flags.
    check(opts) {
      listQuery(opts);
      checkPaging(opts);
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      what: 'an array of field definitions as the API sends them',
      schema: ENDPOINTS.listFields.answer.schema(),
      note: "(with --columns only those members); the next page's cursor goes to stderr, and to --summary-json FILE as nextCursor",
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Without --all (or --paginate) one page is printed and, when more follow, the cursor of the
next page goes to stderr below it (and to --summary-json FILE, nextCursor). --custom-object-id lists CUSTOM_OBJECT fields and keeps that object's (the API has no
such filter), so a page may hold fewer rows than --limit. Output: a table on a terminal, else a
JSON array of the fields; -o ndjson|csv|json|table.

Examples:
  $ cnv fields list --object-type contact
  $ cnv fields list --all -o csv > fields.csv
  $ cnv fields list --custom-object-id c0000000-0000-4000-8000-000000000001 -q '[].key'`,
  );
}

/** The list query from the flags, and the custom object whose fields are kept (client-side). */
function listQuery(opts: Pick<ValuesOf<typeof options>, 'objectType' | 'customObjectId' | 'limit' | 'cursor'>): {
  query: ListFieldsQuery;
  customObjectId?: string;
} {
  const query: ListFieldsQuery = {};
  let customObjectId: string | undefined;
  if (opts.objectType !== undefined) query.objectType = opts.objectType;
  if (opts.customObjectId !== undefined) {
    const id = uuidSchema.safeParse(opts.customObjectId.trim());
    if (!id.success)
      throw new UsageError(`--custom-object-id: ${id.error.issues[0].message}, got "${opts.customObjectId}"`);
    if (query.objectType !== undefined && query.objectType !== 'CUSTOM_OBJECT') {
      throw new UsageError('--custom-object-id: goes only with --object-type CUSTOM_OBJECT');
    }
    // The spec names no customObjectId parameter: list CUSTOM_OBJECT fields and filter here.
    query.objectType = 'CUSTOM_OBJECT';
    customObjectId = id.data;
  }
  if (opts.limit !== undefined) query.limit = opts.limit;
  if (opts.cursor !== undefined) query.cursor = opts.cursor;
  return { query, customObjectId };
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const { query, customObjectId } = listQuery(opts);
  const keep = (fields: FieldDefinition[]) =>
    customObjectId ? fields.filter((f) => isFieldOfCustomObject(f, customObjectId)) : fields;
  const http = await ctx.http();
  return listPages(ctx, opts, {
    label: 'fields list',
    cursor: query.cursor,
    fetch: async (cursor) => {
      const page = await http.call(ENDPOINTS.listFields, { query: { ...query, cursor }, signal: ctx.signal });
      return { rows: keep(page.items), nextCursor: page.nextCursor };
    },
    ...chosenColumns(opts, FIELD_COLUMNS),
  });
}
