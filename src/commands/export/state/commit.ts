import type { Command } from 'commander';
import type { CommandInput } from '../../../cmdutil/contract.js';
import type { Context } from '../../../context.js';
import { CliError, ExitCode, UsageError } from '../../../errors.js';
import { checkRunId } from '../../../cmdutil/export-options.js';
import { openStateStore, stateNotFound } from '../../../exporter/state-view.js';
import type { CommandResult } from '../../../output/render.js';
import { commandOptions, textFlag, withBrief } from '../../../cmdutil/flags.js';
import { stateDirOf } from '../../../cmdutil/context-deps.js';
import type { JsonOutput } from '../../../cmdutil/json-output.js';
import { z } from 'zod';

export const options = commandOptions(
  {
    run: withBrief(
      textFlag(
        '--run <id>',
        'the --defer-commit run to commit (its summary names it; or the id you gave it with --run)',
      ),
      'the --defer-commit run to commit',
    ),
  },
  {
    check(opts) {
      if (opts.run === undefined) {
        throw new UsageError(
          '--run is required: name the --defer-commit run to commit',
          'its summary line names it (`--run ID`); or give the export your own id with --run',
        );
      }
      checkRunId(opts.run, '--run');
    },
  },
);

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: z.strictObject({
        key: z.string(),
        run: z.string(),
        committed: z.boolean(),
        rows: z.number(),
        added: z.number().optional(),
        cursor: z.string().nullable(),
      }),
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.argument('<key>', 'the state key (see `cnv export state list`)').addHelpText(
    'after',
    `
Makes the pending position of a --defer-commit run current, once its consumer has succeeded.
The commit names its run and refuses any other: when a later run superseded it (it started
again from the committed position and sends the same rows again), nothing is committed (exit 7).
Committing a run already committed is not an error (exit 0, with a warning).

Examples:
  $ cnv export state commit crm --run 20250101T0700-4242
  $ set -o pipefail; run=$(date +%Y%m%dT%H%M%S)-$$
  $ cnv export contacts --state-key crm --defer-commit --run "$run" | load-into-crm && cnv export state commit crm --run "$run"`,
  );
}

export async function run(ctx: Context, { args, opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const runId = opts.run!;
  const { store, key } = await openStateStore(stateDirOf(ctx), args[0]);
  const lock = await store.lock(key);
  try {
    const state = store.read(key);
    if (!state) throw stateNotFound(key);
    const manifest = state.runs.find((m) => m.runId === runId);
    if (state.pending?.runId !== runId) {
      if (manifest?.status === 'committed') {
        ctx.warn(`export state "${key}": run ${runId} is committed already`);
        return {
          kind: 'record',
          data: { key, run: runId, committed: false, rows: state.current.rows, cursor: state.current.cursor },
        };
      }
      if (manifest) {
        const by = state.pending ? `run ${state.pending.runId} is pending instead` : 'nothing is pending';
        throw new CliError(
          `export state "${key}": run ${runId} is not pending (${manifest.status}; ${by}); nothing was committed`,
          {
            exitCode: ExitCode.transient,
            code: 'run_not_pending',
            hint: 'no row is lost: a later run started again from the committed position and sends these rows again (commit that run once its consumer succeeded)',
          },
        );
      }
      throw new CliError(`export state "${key}" has no run ${runId}`, {
        exitCode: ExitCode.notFound,
        code: 'run_not_found',
        hint: `\`cnv export state show ${key}\` lists its recent runs`,
      });
    }
    const { runId: _runId, savedAt: _savedAt, ...position } = state.pending;
    const runs = state.runs.map((m) => (m.runId === runId ? { ...m, status: 'committed' as const } : m));
    const now = new Date(ctx.clock.now()).toISOString();
    await store.write({ ...state, current: position, pending: undefined, runs, updatedAt: now });
    return {
      kind: 'record',
      data: {
        key,
        run: runId,
        committed: true,
        rows: position.rows,
        added: position.rows - state.current.rows,
        cursor: position.cursor,
      },
    };
  } finally {
    await lock.release();
  }
}
