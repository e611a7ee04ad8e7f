import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';

/** No options of its own. */
export const options = commandOptions({});

export function configure(cmd: Command): void {
  cmd.argument('<profile>', 'profile to make the default').addHelpText('after', `
Examples:
  $ cnv config use prod`);
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const name = String(args[0]);
  store.existing(name);
  await store.use(name);
  ctx.info(`profile "${name}" is now the default`);
  return { kind: 'document', data: { profile: name, default: true, configFile: store.path } };
}
