import { CommanderError } from 'commander';
import type { Context } from '../context.js';
import { CliError, DryRunStop, ExitCode, OutputClosedError, stdoutError } from '../errors.js';
import { escapeControl } from '../lib/terminal-text.js';

/**
 * The single error handler: one line on stderr (plus a hint), JSON too with --json; returns the
 * exit code. Every line is redacted, and its control characters (a server's message may carry
 * ESC, OSC, CR, a newline that forges a line) are shown as escapes; the JSON line is JSON-escaped.
 */
export function reportError(ctx: Context, err: unknown, argv: string[]): number {
  const json = ctx.globals.json || argv.includes('--json');
  const write = (line: string) => ctx.io.stderr.write(escapeControl(ctx.redact(line)) + '\n');
  const reason = ctx.signal.aborted ? ctx.signal.reason : undefined;
  // The interruption wins, unless the command said more about it (how to resume a file run).
  const told = err instanceof CliError && err.cause === reason;
  const error = reason instanceof CliError && !told ? reason : (failedStdout(ctx, err) ?? err);

  if (error instanceof CommanderError) {
    // CnvCommand turns parse errors into UsageErrors; this is what else commander may throw.
    const message = error.message.replace(/^error: /, '');
    write(`error: usage: ${message}`);
    if (json) write(JSON.stringify({ error: { code: 'usage', message, exitCode: ExitCode.usage } }));
    return ExitCode.usage;
  }
  if (error instanceof DryRunStop) return ExitCode.ok;
  // `| head` closed the pipe: the reader has what it wanted; an error line would be noise.
  if (error instanceof OutputClosedError) return error.exitCode;
  if (error instanceof CliError) {
    const hint = error.hint;
    write(`error: ${error.code}: ${error.message}`);
    if (hint) write(`hint: ${hint}`);
    if (json) {
      const status = (error as { status?: number }).status;
      write(
        JSON.stringify({ error: { code: error.code, message: error.message, status, exitCode: error.exitCode, hint } }),
      );
    }
    return error.exitCode;
  }
  const e = error as Error;
  write(`error: internal: ${e?.message ?? String(error)}`);
  if (ctx.globals.verbose && e?.stack) for (const line of e.stack.split('\n')) write(line);
  else
    write(
      'hint: this is a bug in cnv; run again with --debug (stack trace and requests, key redacted) ' +
        'and report it with that output',
    );
  if (json)
    write(
      JSON.stringify({
        error: { code: 'internal', message: e?.message ?? String(error), exitCode: ExitCode.internal },
      }),
    );
  return ExitCode.internal;
}

/**
 * The error of a write to stdout (`> /dev/full`) as the command met it, before the launcher
 * heard of it: exit 8 naming stdout, not "a bug in cnv".
 */
function failedStdout(ctx: Context, err: unknown): CliError | undefined {
  const failure = ctx.io.stdout.errored;
  if (!failure || err instanceof CliError) return undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err === failure || (code !== undefined && code === (failure as NodeJS.ErrnoException).code)
    ? stdoutError(failure)
    : undefined;
}
