import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { commandOptions, switchFlag } from '../../cmdutil/flags.js';
import { confirmDeletion } from '../../terminal/confirm.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions({
  yes: switchFlag('-y, --yes', 'delete without asking (required off a terminal)'),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => {
  const schema = z.strictObject({
    profile: z.string(),
    removed: z.literal(true),
    default: z.string().nullable().describe('the default profile after, or null'),
    profiles: z.array(z.string()).describe('those left'),
    configFile: z.string(),
  });
  return {
    documents: [
      { schema, note: 'with --json or -q (without them nothing on stdout: a line on stderr says what changed)' },
    ],
  };
};

export function configure(cmd: Command): void {
  cmd.argument('<profile>', 'profile to delete, with its API key').addHelpText(
    'after',
    `
Deletes the profile and the API key stored with it from the config file. When it was the
default, the default moves to the one profile left (or to a profile named "default"); with
several others left it is unset, and one line says which (\`cnv config use NAME\` sets it).
A key given by CNV_API_KEY or --api-key is not in the config and stays in force. On a terminal
it asks first (--yes skips the question); off a terminal it deletes nothing without --yes (exit 2).

Examples:
  $ cnv config remove staging
  $ cnv config remove old --yes --json`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const store = await ctx.config();
  const name = String(args[0]);
  store.existing(name);
  await confirmDeletion(
    ctx.io,
    opts.yes,
    `config remove ${name}`,
    () => `delete profile "${name}" and the API key stored with it?`,
  );
  const wasDefault = store.currentProfile() === name;
  const after = await store.remove(name);
  // One line: what went, and where the default is now (only when it changed).
  const where = !wasDefault
    ? ''
    : after.default !== null
      ? `; "${after.default}" is now the default`
      : after.left.length === 0
        ? '; no profiles are left'
        : `; there is no default profile now: \`cnv config use NAME\` sets one (profiles: ${after.left.join(', ')})`;
  ctx.info(`removed profile "${name}" and its API key${where}`);
  return {
    kind: 'document',
    data: { profile: name, removed: true, default: after.default, profiles: after.left, configFile: store.path },
  };
}
