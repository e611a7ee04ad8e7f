import type { Command } from 'commander';
import { checkBaseUrl, profileName } from '../../config/resolve.js';
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
      schema: z.strictObject({
        profile: z.string(),
        baseUrl: z.string(),
        default: z.boolean(),
        configFile: z.string(),
      }),
      note: 'with --json or -q (without them nothing on stdout: a line on stderr says what changed)',
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<url>', 'base URL of the API (https; http only for loopback)').addHelpText(
    'after',
    `
Examples:
  $ cnv config set-url https://api.example.com
  $ cnv --profile local config set-url http://127.0.0.1:4010`,
  );
}

export async function run(ctx: Context, { args }: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const profile = profileName({ profileFlag: ctx.globals.profile, env: ctx.env }, store);
  const baseUrl = checkBaseUrl(String(args[0]), 'the argument');
  await store.update(profile, { baseUrl });
  ctx.info(`saved base URL ${baseUrl} for profile "${profile}"`);
  return {
    kind: 'document',
    data: { profile, baseUrl, default: store.currentProfile() === profile, configFile: store.path },
  };
}
