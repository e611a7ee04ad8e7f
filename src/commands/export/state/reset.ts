import type { Command } from 'commander';
import type { CommandInput } from '../../../cmdutil/contract.js';
import type { Context } from '../../../context.js';
import { CliError } from '../../../errors.js';
import { openStateStore, stateNotFound } from '../../../exporter/state-view.js';
import type { ExportStateStore } from '../../../exporter/state-store.js';
import type { ExportState } from '../../../exporter/export-state.js';
import { confirmDeletion } from '../../../terminal/confirm.js';
import type { CommandResult } from '../../../output/render.js';
import { commandOptions, switchFlag } from '../../../cmdutil/flags.js';
import { stateDirOf } from '../../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions({
  yes: switchFlag('-y, --yes', 'delete without asking (required off a terminal)'),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [{ schema: z.strictObject({ key: z.string(), removed: z.boolean() }) }],
});

export function configure(cmd: Command): void {
  cmd.argument('<key>', 'the state key (see `cnv export state list`)').addHelpText(
    'after',
    `
Deletes an export state (under its lock: exit 7 while a run holds it). The next run of that
key starts from the beginning and, into a file, needs an empty file or --full. On a terminal
it asks first (--yes skips the question); off a terminal (cron, CI, a pipe) it never asks and
deletes nothing without --yes (exit 2), as gh does. A key that does not exist is exit 5, like \`state commit\`.

Examples:
  $ cnv export state reset sk_live_demo@api.example.com/contacts:/data/contacts.csv
  $ cnv export state reset crm --yes        # in a script: required off a terminal`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const { store, key } = await openStateStore(stateDirOf(ctx), args[0]);
  // A damaged state is what reset is for: its error names this command.
  const state = readOrDamaged(store, key);
  if (!state) throw stateNotFound(key);
  // Asked before taking the lock, so a person thinking it over does not hold up a run.
  await confirmDeletion(ctx.io, opts.yes, `export state reset ${key}`, () => {
    const what = state === DAMAGED ? 'the damaged export state' : 'export state';
    const about =
      state === DAMAGED
        ? 'it cannot be read'
        : `${state.current.rows.toLocaleString('en-US')} rows exported, last saved ${state.updatedAt}`;
    return `delete ${what} "${key}" (${about})? The next run starts over.`;
  });
  const lock = await store.lock(key);
  try {
    if (!store.remove(key)) throw stateNotFound(key);
    return { kind: 'record', data: { key, removed: true } };
  } finally {
    await lock.release();
  }
}

const DAMAGED = Symbol('damaged');

function readOrDamaged(store: ExportStateStore, key: string): ExportState | typeof DAMAGED | undefined {
  try {
    return store.read(key);
  } catch (err) {
    if (err instanceof CliError && err.code === 'state_corrupt') return DAMAGED;
    throw err;
  }
}
