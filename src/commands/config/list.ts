import type { Command } from 'commander';
import { chosenColumns, columnsFlag, type ListColumns } from '../../cmdutil/list-fields-flag.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { maskKey, redactUrl } from '../../redact/redact.js';
import type { CommandResult } from '../../output/render.js';

const PROFILE_COLUMNS: ListColumns = { all: ['profile', 'current', 'baseUrl', 'apiKey'], table: ['profile', 'current', 'baseUrl', 'apiKey'] };

export const options = commandOptions(columnsFlag(PROFILE_COLUMNS));

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
Examples:
  $ cnv config list
  $ cnv config list --json`);
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const picked = chosenColumns(opts, PROFILE_COLUMNS);
  const store = await ctx.config();
  const current = store.currentProfile();
  const rows = Object.entries(store.profiles()).map(([name, p]) => ({
    profile: name,
    current: name === current,
    baseUrl: p.baseUrl === undefined ? null : redactUrl(p.baseUrl),
    apiKey: p.apiKey ? maskKey(p.apiKey) : null,
  }));
  return { kind: 'list', rows, ...picked };
}
