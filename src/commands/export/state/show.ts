import type { Command } from 'commander';
import type { CommandInput } from '../../../cmdutil/contract.js';
import type { Context } from '../../../context.js';
import { lockHolder } from '../../../exporter/lock.js';
import { agoText, openStateStore, stateDetail, stateNotFound } from '../../../exporter/state-view.js';
import { resolveFormat } from '../../../output/format.js';
import type { CommandResult } from '../../../output/render.js';
import { outputOf, stateDirOf } from '../../../cmdutil/context-deps.js';
import { commandOptions } from '../../../cmdutil/flags.js';
import type { JsonOutput } from '../../../cmdutil/json-output.js';
import { z } from 'zod';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const schema = z.looseObject({
    key: z.string(),
    kind: z.string(),
    profile: z.string(),
    baseUrl: z.string().nullable(),
    account: z.unknown(),
    stateFile: z.string(),
    lockedBy: z.unknown(),
    cursor: z.string().nullable(),
    cursorAt: z.string().nullable(),
    rows: z.number(),
    pages: z.number(),
    format: z.string(),
    output: z.union([
      z.strictObject({ kind: z.literal('file'), path: z.string(), bytes: z.number() }),
      z.strictObject({ kind: z.literal('stdout') }),
    ]),
  });
  return { documents: [{ what: 'the state object, with its pending position and run manifests', schema }] };
};

export function configure(cmd: Command): void {
  cmd.argument('<key>', 'the state key (see `cnv export state list`)').addHelpText(
    'after',
    `
Shows one export state: the saved cursor and its age, the committed file length, the CSV header,
the pending position of a --defer-commit run, and the manifest of recent runs (rows, pages,
bytes, sha256 of the bytes each appended, first and last cursor). On a terminal the runs
table has the columns that tell runs apart (runId, status, startedAt, finishedAt, rows, pages,
bytes, moreRemains, error); --json has every member.

Examples:
  $ cnv export state show sk_live_demo@api.example.com/contacts:/data/contacts.csv
  $ cnv export state show crm --json | jq '.runs[-1]'`,
  );
}

/** The runs table's columns on a terminal. */
const RUN_COLUMNS = ['runId', 'status', 'startedAt', 'finishedAt', 'rows', 'pages', 'bytes', 'moreRemains', 'error'];

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const { store, key } = await openStateStore(stateDirOf(ctx), args[0]);
  const state = store.read(key);
  if (!state) throw stateNotFound(key);
  const detail = stateDetail(state, store.pathOf(key), lockHolder(store.pathOf(key)), (text) => ctx.redact(text));
  // JSON keeps the ISO time; a terminal reads an age beside it.
  if (resolveFormat(outputOf(ctx)) === 'table') {
    if (typeof detail.cursorAt === 'string')
      detail.cursorAt = `${detail.cursorAt} (${agoText(detail.cursorAt, ctx.clock.now())})`;
    // The runs table shows what tells runs apart (cursors, digests and offsets are in JSON): its headings fit.
    detail.runs = (detail.runs as Array<Record<string, unknown>>).map((r) =>
      Object.fromEntries(RUN_COLUMNS.filter((c) => c in r).map((c) => [c, r[c]])),
    );
  }
  return { kind: 'record', data: detail };
}
