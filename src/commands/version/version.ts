import type { Command } from 'commander';
import type { CommandInput } from '../../cmdutil/contract.js';
import { VERSION, versionInfo } from '../../cmdutil/version.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { writeWithBackpressure } from '../../output/write.js';
import { commandOptions } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';
import { z } from 'zod';

/** No options of its own. */
export const options = commandOptions({});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: z.strictObject({ version: z.string(), node: z.string(), platform: z.string() }),
      note: 'with --json, -o json or -q (without them, piped too, the bare version)',
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Prints the version alone (like \`cnv --version\`), piped too; with --json, -o json|ndjson or
-q an object with the version, the Node.js version and the platform, for bug reports.

Examples:
  $ cnv version
  $ cnv version --json
  $ cnv version -q node`,
  );
}

export async function run(ctx: Context, _input: CommandInput<typeof options>): Promise<CommandResult> {
  const format = ctx.globals.json || ctx.globals.query !== undefined ? 'json' : ctx.globals.format;
  if (format === undefined || format === 'table') {
    await writeWithBackpressure(ctx.io.stdout, `${VERSION}\n`);
    return { kind: 'none' };
  }
  return { kind: 'record', data: versionInfo() };
}
