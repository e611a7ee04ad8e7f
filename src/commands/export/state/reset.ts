import type { Command } from 'commander';
import type { CommandInput } from '../../../cli/registry.js';
import type { Context } from '../../../context.js';
import { acquireExportLock } from '../../../exports/lock.js';
import { openStateStore } from '../../../exports/state-view.js';
import type { CommandResult } from '../../../io/render.js';

export function configure(cmd: Command): void {
  cmd.argument('<key>', 'the state key (see `cnv export state list`)').addHelpText('after', `
Deletes an export state (under its lock: exit 7 while a run holds it). The next run of that
key starts from the beginning and, into a file, needs an empty file or --full.

Examples:
  $ cnv export state reset default@api.example.com/contacts:/data/contacts.csv`);
}

export async function run(ctx: Context, { args }: CommandInput): Promise<CommandResult> {
  const { store, key } = await openStateStore(ctx, args[0]);
  const lock = await acquireExportLock(store.pathOf(key), key);
  try {
    const removed = store.remove(key);
    if (!removed) ctx.warn(`there was no export state "${key}"`);
    return { kind: 'record', data: { key, removed } };
  } finally {
    await lock.release();
  }
}
