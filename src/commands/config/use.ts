import type { Command } from 'commander';
import type { CommandInput } from '../contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { CommandResult } from '../../io/render.js';
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
  if (!store.profile(name)) {
    const known = Object.keys(store.profiles());
    throw new UsageError(`no profile named "${name}"`, known.length ? `known profiles: ${known.join(', ')}` : 'create one with `cnv --profile NAME config set-key`');
  }
  await store.use(name);
  ctx.info(`profile "${name}" is now the default`);
  return { kind: 'document', data: { profile: name, default: true, configFile: store.path } };
}
