import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: z.strictObject({ profile: z.string(), default: z.boolean(), configFile: z.string() }),
      note: 'with --json or -q (without them nothing on stdout: a line on stderr says what changed)',
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<profile>', 'profile to make the default').addHelpText(
    'after',
    `
Examples:
  $ cnv config use prod`,
  );
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const name = String(args[0]);
  store.existing(name);
  await store.use(name);
  ctx.info(`profile "${name}" is now the default`);
  return { kind: 'document', data: { profile: name, default: true, configFile: store.path } };
}
