import type { Command } from 'commander';
import { checkApiKey } from '../../config/api-key.js';
import { profileName } from '../../config/resolve.js';
import { checkBaseUrl } from '../../config/resolve.js';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { maskKey } from '../../redact/redact.js';
import type { CommandResult } from '../../output/render.js';
import { readSecret } from '../../terminal/read-secret.js';
import { commandOptions, flag } from '../../cmdutil/flags.js';
import { verifyKey } from './verify-key.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions({
  /** false with --no-verify. */
  verify: flag(
    '--no-verify',
    'save the key without checking it against the API (offline, or a key for later)',
    z.boolean(),
  ),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: z.strictObject({
        profile: z.string(),
        apiKey: z.string().describe('masked'),
        baseUrl: z.string().nullable(),
        default: z.boolean(),
        configFile: z.string(),
      }),
      note: 'with --json or -q (without them nothing on stdout: a line on stderr says what changed)',
    },
  ],
});

export function configure(cmd: Command): void {
  // Declared only to refuse it: a key typed as an argument lands in shell history and process lists.
  cmd.argument('[key]', 'not accepted: pipe the key on stdin instead').addHelpText(
    'after',
    `
The key is read from stdin when it is piped, else from a hidden prompt; it is never a
command-line argument and never echoed. Use the global --profile to pick the profile and
--base-url to store the base URL with it. The first profile saved into an empty config
becomes the default.

Before it is saved the key is checked against the API, as gh auth login does: one request,
GET /v2/campaigns?limit=1, to the base URL in force (--base-url, else CNV_BASE_URL, else the
profile's). A key the API refuses (401, 403) is not saved: exit 4. A server that cannot be
reached is exit 7, also not saved. --no-verify saves it without a request (offline); with no
base URL known yet the key is saved unchecked, and a warning says so.

Examples:
  $ cnv config set-key                         # prompts, input hidden
  $ printf %s "$CNV_KEY" | cnv config set-key --profile prod --base-url https://api.example.com
  $ printf %s "$CNV_KEY" | cnv config set-key --no-verify     # offline: saved unchecked`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  if (args[0] !== undefined) {
    // Never echo it back: the message names what happened, not the value.
    throw new UsageError(
      'the API key is not taken as an argument (it would stay in shell history and process lists)',
      'pipe it in: printf %s "$KEY" | cnv config set-key   (or run `cnv config set-key` alone for a hidden prompt)',
      'key_as_argument',
    );
  }
  const store = await ctx.config();
  const first = Object.keys(store.profiles()).length === 0;
  const profile = profileName({ profileFlag: ctx.globals.profile, env: ctx.env }, store);
  const key = (await readSecret(ctx.io, `API key for profile "${profile}": `, ctx.signal)).trim();
  if (key === '')
    throw new UsageError('no API key was given on stdin', 'pipe the key in: printf %s "$KEY" | cnv config set-key');
  const { warning } = checkApiKey(key, 'stdin');
  if (warning) ctx.warn(warning);
  const baseUrl = ctx.globals.baseUrl ? checkBaseUrl(ctx.globals.baseUrl, '--base-url') : undefined;
  const checked =
    opts.verify === false
      ? 'not checked (--no-verify)'
      : await verifyKey(ctx, key, baseUrl, store.profile(profile)?.baseUrl);
  await store.update(profile, baseUrl ? { apiKey: key, baseUrl } : { apiKey: key });
  ctx.info(
    `saved API key ${maskKey(key)} for profile "${profile}"${baseUrl ? ` with base URL ${baseUrl}` : ''}; ${checked}`,
  );
  // An empty config's first profile is the one meant: `--profile p` alone must not leave "default" current.
  if (first && store.currentProfile() !== profile) {
    await store.use(profile);
    ctx.info(`profile "${profile}" is now the default (\`cnv config use NAME\` changes it)`);
  }
  const saved = store.profile(profile);
  return {
    kind: 'document',
    data: {
      profile,
      apiKey: maskKey(key),
      baseUrl: saved?.baseUrl ?? null,
      default: store.currentProfile() === profile,
      configFile: store.path,
    },
  };
}
