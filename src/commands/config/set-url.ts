import type { Command } from 'commander';
import { checkBaseUrl, profileName } from '../../config/resolve.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';

/** No options of its own. */
export const options = commandOptions({});

export function configure(cmd: Command): void {
  cmd.argument('<url>', 'base URL of the API (https; http only for loopback)').addHelpText('after', `
Examples:
  $ cnv config set-url https://api.example.com
  $ cnv --profile local config set-url http://127.0.0.1:4010`);
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const profile = profileName({ profileFlag: ctx.globals.profile, env: ctx.env }, store);
  const baseUrl = checkBaseUrl(String(args[0]), 'the argument');
  await store.update(profile, { baseUrl });
  ctx.info(`saved base URL ${baseUrl} for profile "${profile}"`);
  return { kind: 'document', data: { profile, baseUrl, default: store.currentProfile() === profile, configFile: store.path } };
}
