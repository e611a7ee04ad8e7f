import type { Command } from 'commander';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { chosenColumns, columnsFlag, type ListColumns } from '../../cmdutil/list-fields-flag.js';
import { checkPaging, listPages, PAGING_FLAGS } from '../../cmdutil/paging-option.js';
import { pageSize } from '../../cmdutil/parse.js';
import { commandOptions, numberFlag, textFlag, withBrief } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

/** Columns of CSV, and the table's default few (json and ndjson print each campaign as the API sent it). */
const CAMPAIGN_COLUMNS: ListColumns = {
  all: [
    'id',
    'name',
    'type.id',
    'type.name',
    'type.systemType',
    'sfdcCampaignId',
    'memberCount',
    'createdAt',
    'updatedAt',
  ],
  table: ['id', 'name', 'type.name', 'memberCount'],
};

/** The spec's page size range of List campaigns (out-of-range values are clamped). */
const PAGE = ENDPOINTS.listCampaigns.page;

export const options = commandOptions(
  {
    ...columnsFlag(CAMPAIGN_COLUMNS),
    limit: withBrief(
      numberFlag(
        '--limit <n>',
        `page size, ${PAGE.min} to ${PAGE.max} (other values are clamped, as the API does)`,
        pageSize(PAGE.min, PAGE.max),
      ),
      `page size, ${PAGE.min} to ${PAGE.max}`,
    ),
    cursor: textFlag('--cursor <cursor>', 'continue from the cursor a previous page printed'),
    ...PAGING_FLAGS,
  },
  { check: checkPaging },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      what: 'an array of campaigns as the API sends them',
      schema: ENDPOINTS.listCampaigns.answer.schema(),
      note: "(with --columns only those members); the next page's cursor goes to stderr, and to --summary-json FILE as nextCursor",
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Custom campaigns only (archived ones are not listed). Statuses and descriptions are read with
\`cnv campaigns get\`.

Without --all (or --paginate) one page is printed and, when more follow, "next page: --cursor
X" goes to stderr below it. stdout is always the rows only (a JSON array, piped or with
--json), so \`jq '.[]'\` and -q '[].name' work on any page; a script that pages by itself reads
the cursor from --summary-json FILE (nextCursor, null on the last page).

Examples:
  $ cnv campaigns list
  $ cnv campaigns list -q '[].name'
  $ cnv campaigns list --columns id,name,type.systemType
  $ cnv campaigns list --all -o csv > campaigns.csv
  $ cnv campaigns list --limit 50 --summary-json page.json > rows.json; jq -r .nextCursor page.json`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const http = await ctx.http();
  return listPages(ctx, opts, {
    label: 'campaigns list',
    cursor: opts.cursor,
    fetch: async (cursor) => {
      const page = await http.call(ENDPOINTS.listCampaigns, {
        query: { limit: opts.limit, cursor },
        signal: ctx.signal,
      });
      return { rows: page.items, nextCursor: page.nextCursor };
    },
    ...chosenColumns(opts, CAMPAIGN_COLUMNS),
  });
}
