import { createInterface } from 'node:readline';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { IO } from './io.js';

/**
 * Asks a yes/no question on the terminal (stderr) and reads one line from stdin: true only for
 * y or yes. Callers ask only when stdin and stderr are terminals; off a terminal they decide
 * without asking (a cron job or CI step must never hang on a prompt).
 */
async function confirm(io: Pick<IO, 'stdin' | 'stderr'>, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  const lines = createInterface({ input: io.stdin, terminal: false });
  try {
    for await (const line of lines) return /^\s*y(es)?\s*$/i.test(line);
    return false;
  } finally {
    lines.close();
  }
}

/** Whether a question can be asked: a person at a terminal on both ends. */
function canAsk(io: Pick<IO, 'stdinIsTTY' | 'stderrIsTTY'>): boolean {
  return io.stdinIsTTY && io.stderrIsTTY;
}

/**
 * The gate of a command that deletes: `--yes` goes ahead; on a terminal the question is asked
 * (anything but yes refuses); off a terminal (a script, cron, CI) nothing is deleted without
 * `--yes`, as gh does (exit 2 naming the flag).
 */
export async function confirmDeletion(
  io: Pick<IO, 'stdin' | 'stderr' | 'stdinIsTTY' | 'stderrIsTTY'>,
  yes: boolean | undefined,
  what: string,
  question: () => string,
): Promise<void> {
  if (yes === true) return;
  if (!canAsk(io)) {
    throw new UsageError(
      `${what}: --yes is required off a terminal (nothing was deleted)`,
      'pass --yes to delete without a question (a script, cron or CI job)',
      'confirmation_required',
    );
  }
  if (!(await confirm(io, question()))) {
    throw new CliError('not deleted: the question was not answered yes', {
      exitCode: ExitCode.usage,
      code: 'not_confirmed',
      hint: 'pass --yes to delete without asking',
    });
  }
}
