import { CommanderError } from 'commander';
import type { ContextDeps } from './context.js';
import { createContext } from './cli/create-context.js';
import { buildProgram } from './cli/program.js';
import { reportError } from './cli/report-error.js';
import { stdoutError } from './errors.js';

export type RunDeps = ContextDeps;

/**
 * Runs the CLI for `argv` (without node and script) and resolves to the exit code.
 * Never exits the process: bin/cnv.js does that.
 */
export async function run(argv: string[], deps: RunDeps): Promise<number> {
  const ctx = createContext({ ...deps, argv });
  let exitCode = 0;
  const program = buildProgram(ctx, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')) {
      exitCode = 0;
    } else {
      exitCode = reportError(ctx, err, argv);
    }
  } finally {
    await ctx.dispose();
  }
  // What was written to stdout and failed (`> /dev/full`: help, a record, an export) was lost:
  // the run did not do what it was asked, whatever the command made of it.
  const lost = deps.io.stdout.errored;
  if (lost && exitCode === 0) exitCode = reportError(ctx, stdoutError(lost), argv);
  return exitCode;
}
