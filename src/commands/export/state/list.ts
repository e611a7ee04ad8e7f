import type { Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../../contract.js';
import type { Context } from '../../../context.js';
import { lockHolder } from '../../../exports/lock.js';
import { openStateStore, stateRow } from '../../../exports/state-view.js';
import type { CommandResult } from '../../../io/render.js';

/** No options of its own. */
export const options = z.object({});

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
Lists the saved export states of this config directory: key, rows exported, age of the saved
cursor, output, last run and any pending (--defer-commit) position.

Examples:
  $ cnv export state list
  $ cnv export state list --json | jq -r '.[].key'`);
}

export async function run(ctx: Context, _input: CommandInput<typeof options>): Promise<CommandResult> {
  const { store } = await openStateStore(ctx);
  const now = ctx.clock.now();
  const rows = store.list((err) => ctx.warn(err.message)).map((s) => stateRow(s, now, lockHolder(store.pathOf(s.key)) !== undefined));
  return { kind: 'list', rows, columns: ['key', 'kind', 'format', 'rows', 'cursorAge', 'output', 'lastRun', 'pending'] };
}
