import { createInterface } from 'node:readline';
import type { IO } from './streams.js';

/**
 * Asks a yes/no question on the terminal (stderr) and reads one line from stdin: true only for
 * y or yes. Callers ask only when stdin and stderr are terminals; off a terminal they decide
 * without asking (a cron job or CI step must never hang on a prompt).
 */
export async function confirm(io: Pick<IO, 'stdin' | 'stderr'>, question: string): Promise<boolean> {
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
export function canAsk(io: Pick<IO, 'stdinIsTTY' | 'stderrIsTTY'>): boolean {
  return io.stdinIsTTY && io.stderrIsTTY;
}
