import type { Command } from 'commander';
import type { CommandInput } from '../../../cli/registry.js';
import type { Context } from '../../../context.js';
import { acquireExportLock } from '../../../exports/lock.js';
import { openStateStore, stateNotFound } from '../../../exports/state-view.js';
import type { CommandResult } from '../../../io/render.js';

export function configure(cmd: Command): void {
  cmd.argument('<key>', 'the state key (see `cnv export state list`)').addHelpText('after', `
Makes the pending position of a --defer-commit run current, once its consumer has succeeded.
Nothing pending is not an error (exit 0, with a warning), so a retried commit is harmless.

Examples:
  $ cnv export state commit crm
  $ set -o pipefail; cnv export contacts --state-key crm --defer-commit | load-into-crm && cnv export state commit crm`);
}

export async function run(ctx: Context, { args }: CommandInput): Promise<CommandResult> {
  const { store, key } = await openStateStore(ctx, args[0]);
  const lock = await acquireExportLock(store.pathOf(key), key);
  try {
    const state = store.read(key);
    if (!state) throw stateNotFound(key);
    if (!state.pending) {
      ctx.warn(`export state "${key}" has nothing pending`);
      return { kind: 'record', data: { key, committed: false, rows: state.current.rows, cursor: state.current.cursor } };
    }
    const { runId, savedAt: _savedAt, ...position } = state.pending;
    const runs = state.runs.map((m) => (m.runId === runId ? { ...m, status: 'committed' as const } : m));
    const now = new Date(ctx.clock.now()).toISOString();
    await store.write({ ...state, current: position, pending: undefined, runs, updatedAt: now });
    return { kind: 'record', data: { key, committed: true, rows: position.rows, added: position.rows - state.current.rows, cursor: position.cursor } };
  } finally {
    await lock.release();
  }
}
