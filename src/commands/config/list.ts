import type { Command } from 'commander';
import { chosenColumns, columnsFlag, type ListColumns } from '../../cmdutil/list-fields-flag.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { maskKey, redactUrl } from '../../redact/redact.js';
import type { CommandResult } from '../../output/render.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

const PROFILE_COLUMNS: ListColumns = {
  all: ['profile', 'current', 'baseUrl', 'apiKey'],
  table: ['profile', 'current', 'baseUrl', 'apiKey'],
};

export const options = commandOptions(columnsFlag(PROFILE_COLUMNS));

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      what: 'an array of profiles',
      schema: z.array(
        z.strictObject({
          profile: z.string(),
          current: z.boolean(),
          baseUrl: z.string().nullable(),
          apiKey: z.string().nullable().describe('masked'),
        }),
      ),
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Examples:
  $ cnv config list
  $ cnv config list --json`,
  );
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
