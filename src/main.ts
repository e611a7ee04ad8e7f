import { CommanderError } from 'commander';
import type { ContextDeps } from './context.js';
import { createContext } from './cli/create-context.js';
import { buildProgram } from './cli/program.js';
import { reportError } from './cli/report-error.js';
import { LocalFileError, stdoutError } from './errors.js';

export type RunDeps = ContextDeps;

/**
 * Runs the CLI for `argv` (without node and script) and resolves to the exit code.
 * Never exits the process: bin/cnv.js does that.
 */
export async function run(argv: string[], deps: RunDeps): Promise<number> {
  const ctx = createContext({ ...deps, argv });
  let exitCode = 0;
  let reported = false;
  const program = buildProgram(ctx, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (
      err instanceof CommanderError &&
      (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
    ) {
      exitCode = 0;
    } else {
      exitCode = reportError(ctx, err, argv);
      reported = true;
    }
  } finally {
    await ctx.dispose();
  }
  // What was written to stdout and failed (`> /dev/full`: help, a record, an export, a file
  // run's result document) was lost: the run did not do what it was asked, whatever the command
  // made of it, also when its result said 6 or 9 (`--exit-code`); an error already reported keeps
  // its code.
  const lost = deps.io.stdout.errored ?? stdoutFailure(ctx.signal);
  if (lost && !reported) exitCode = reportError(ctx, stdoutError(lost), argv);
  return exitCode;
}

/**
 * The failure of stdout the launcher saw (its 'error' listener aborts the run with it). The
 * stream's own `errored` is not enough: a write to `/dev/full` after the run's last request
 * marked the stream errored, and by the run's end `errored` read null again (seen on Node 20
 * with a file run; why is not pinned down): the abort reason stays.
 */
function stdoutFailure(signal: AbortSignal): unknown {
  const reason: unknown = signal.aborted ? signal.reason : undefined;
  return reason instanceof LocalFileError && reason.path === 'stdout' ? reason : undefined;
}
