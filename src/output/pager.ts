import { statusPaint, tableWidth, type Output } from './format.js';
import { writeWithBackpressure } from './write.js';

/** A table laid out for the terminal (its width, status colours). */
export async function tableText(
  output: Output,
  columns: string[],
  rows: Array<Record<string, unknown>>,
  wrap?: readonly string[],
): Promise<string> {
  const { layoutTable } = await import('./table.js');
  return layoutTable(columns, rows, { width: tableWidth(output), paint: statusPaint(output), wrap });
}

/**
 * The pager to run, as gh chooses it: CNV_PAGER, then PAGER, else `less -FRX` (quits when the
 * text fits one screen, keeps colours, leaves the text on the screen). Empty or `cat`: none.
 */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const command = (env.CNV_PAGER ?? env.PAGER ?? 'less -FRX').trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/**
 * Writes a table to stdout, through the pager when it is longer than the terminal (`output.pager`
 * is set only on a terminal, without --no-pager). A pager quit early (`q`) is the reader done:
 * the rest is dropped without an error; a pager that cannot be started is warned about and the
 * text printed directly.
 */
export async function writePaged(output: Output, text: string): Promise<void> {
  const pager = output.pager;
  const rows = (output.stdout as { rows?: number }).rows ?? 24;
  if (!pager || !output.stdoutIsTTY || countLines(text) < rows) return writeWithBackpressure(output.stdout, text);
  const [command, ...args] = pager.command.split(/\s+/);
  const started = await runPager(command, args, text);
  if (started) return;
  const forGood = '--no-pager or CNV_PAGER=cat says so for good';
  pager.warn(`the pager "${pager.command}" could not be started (CNV_PAGER, PAGER): printing directly; ${forGood}`);
  return writeWithBackpressure(output.stdout, text);
}

/** Runs the pager on `text` (its output the terminal's): false when it could not be started. */
async function runPager(command: string, args: string[], text: string): Promise<boolean> {
  // Loaded here, not at the top: node:child_process brings dgram, tty and socket internals that
  // cost every command's start-up about 7% (a same-run A/B of `contacts get`), for a pager that
  // only a long table on a terminal starts.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
    child.once('error', () => resolve(false));
    // The pager quit before reading it all (`q`): nothing is wrong.
    child.stdin.on('error', () => {});
    child.once('spawn', () => child.stdin.end(text));
    child.once('close', () => resolve(true));
  });
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
