import type { Command } from 'commander';
import { profileName } from '../../config/resolve.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { maskKey, redactUrl } from '../../redact/redact.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const schema = z.strictObject({
    profile: z.string(),
    configFile: z.string(),
    apiKey: z.string().nullable().describe('masked'),
    apiKeySource: z.string().nullable(),
    baseUrl: z.string().nullable(),
    baseUrlSource: z.string().nullable(),
  });
  return { documents: [{ schema }] };
};

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Shows the profile, API key (masked) and base URL in force (a user name or password in it
redacted), and where each comes from.

Examples:
  $ cnv config show
  $ CNV_API_KEY=... cnv config show --json`,
  );
}

export async function run(ctx: Context, _input: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const profile = profileName({ profileFlag: ctx.globals.profile, env: ctx.env }, store);
  const saved = store.profile(profile) ?? {};
  const key = ctx.globals.apiKey ?? ctx.env.CNV_API_KEY ?? saved.apiKey;
  const keySource = ctx.globals.apiKey
    ? '--api-key'
    : ctx.env.CNV_API_KEY
      ? 'CNV_API_KEY'
      : saved.apiKey
        ? 'profile'
        : null;
  const baseUrl = ctx.globals.baseUrl ?? ctx.env.CNV_BASE_URL ?? saved.baseUrl;
  const urlSource = ctx.globals.baseUrl
    ? '--base-url'
    : ctx.env.CNV_BASE_URL
      ? 'CNV_BASE_URL'
      : saved.baseUrl
        ? 'profile'
        : null;
  return {
    kind: 'record',
    data: {
      profile,
      configFile: store.path,
      apiKey: key ? maskKey(key) : null,
      apiKeySource: keySource,
      // A URL saved before credentials in it were refused still shows none.
      baseUrl: baseUrl === undefined ? null : redactUrl(baseUrl),
      baseUrlSource: urlSource,
    },
  };
}
