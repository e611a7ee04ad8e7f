import type { Command } from 'commander';
import { chosenColumns, columnsFlag, type ListColumns } from '../../../cmdutil/list-fields-flag.js';
import { commandOptions } from '../../../cmdutil/flags.js';
import type { CommandInput } from '../../../cmdutil/contract.js';
import type { Context } from '../../../context.js';
import { lockHolder } from '../../../exporter/lock.js';
import { openStateStore, STATE_LIST_COLUMNS, stateItem, stateListCells } from '../../../exporter/state-view.js';
import { cellText, resolveFormat, tableWidth } from '../../../output/format.js';
import type { CommandResult } from '../../../output/render.js';
import { outputOf, stateDirOf } from '../../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../../cmdutil/json-output.js';
import { z } from 'zod';

const COLUMNS: ListColumns = { all: [...STATE_LIST_COLUMNS], table: ['key', 'kind', 'rows', 'cursorAt', 'lastRun'] };

export const options = commandOptions(columnsFlag(COLUMNS));

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const time = z.iso.datetime();
  const item = z.strictObject({
    key: z.string(),
    kind: z.enum(['contacts', 'custom-events', 'email-events']),
    emailType: z.string().nullable(),
    format: z.enum(['csv', 'ndjson']),
    rows: z.number(),
    pages: z.number(),
    cursorAt: time.nullable(),
    fullAt: time.nullable().describe('when the position last started from nothing (a full run)'),
    output: z.union([
      z.strictObject({ kind: z.literal('file'), path: z.string(), bytes: z.number() }),
      z.strictObject({ kind: z.literal('stdout') }),
    ]),
    lastRun: z
      .strictObject({
        runId: z.string(),
        status: z.string(),
        startedAt: time,
        finishedAt: time.nullable(),
        rows: z.number(),
      })
      .nullable(),
    pending: z.strictObject({ runId: z.string(), rows: z.number(), savedAt: time }).nullable(),
  });
  return {
    documents: [
      {
        what: 'an array of states',
        schema: z.array(item),
        note: '(times ISO 8601, null when none; with --columns only those members)',
      },
    ],
  };
};

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Lists the saved export states of this config directory. JSON (piped, --json) has ISO times,
numbers and objects: {key, kind, emailType, format, rows, pages, cursorAt, fullAt, output: {kind, path,
bytes}, lastRun: {runId, status, startedAt, finishedAt, rows}, pending: {runId, rows, savedAt}}
(docs/output.md). The table shows ages instead of times, and a key too long for the terminal
by its end (the output file), as …/contacts:/data/contacts.csv; --columns key,output shows
more of both, -q '[].key' prints the keys whole.

Examples:
  $ cnv export state list
  $ cnv export state list --columns key,rows,output
  $ cnv export state list --json | jq -r '.[] | select(.lastRun.status != "complete") | .key'`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const { store } = await openStateStore(stateDirOf(ctx));
  const items = store
    .list((err) => ctx.warn(err.message))
    .map((s) => stateItem(s, lockHolder(store.pathOf(s.key)) !== undefined));
  const columns = chosenColumns(opts, COLUMNS);
  if (resolveFormat(outputOf(ctx)) !== 'table') return { kind: 'list', rows: items, ...columns };
  const now = ctx.clock.now();
  const rows = items.map((item) => stateListCells(item, now));
  return { kind: 'list', rows: keysByTheirEnd(rows, columns.tableColumns, tableWidth(outputOf(ctx))), ...columns };
}

/** Narrowest a key is cut to here; below it the table's own fitting takes over. */
const MIN_KEY_WIDTH = 20;

/**
 * Default keys share their start (`profile@host/kind:`) and differ at the end (the output file):
 * a key too wide for what the terminal leaves it is shown by its end, `…` first, so each row
 * still says which export it is (the table itself would cut every key to the same start).
 */
function keysByTheirEnd(
  rows: Array<Record<string, unknown>>,
  columns: string[],
  width: number | undefined,
): Array<Record<string, unknown>> {
  if (width === undefined || !columns.includes('key')) return rows;
  const widthOf = (column: string) =>
    rows.reduce((w, r) => Math.max(w, [...cellText(r[column])].length), column.length);
  const others = columns.filter((c) => c !== 'key').reduce((sum, c) => sum + widthOf(c) + 2, 0);
  const room = width - others;
  if (room < MIN_KEY_WIDTH) return rows;
  return rows.map((r) => {
    const key = [...String(r.key)];
    return key.length <= room ? r : { ...r, key: `…${key.slice(key.length - room + 1).join('')}` };
  });
}
