import { UsageError } from '../errors.js';

/**
 * Where stdout carries a run's data (export rows, a report on `-`), it has no room for the
 * result document that --json and -q print: refused (exit 2) naming the flag that gives the
 * document instead, rather than mixing the two or ignoring the flag.
 */
export function refuseJsonWhenStdoutIsData(
  globals: { json?: boolean; query?: string },
  carries: string,
  instead: string,
): void {
  const flag = globals.query !== undefined ? '-q/--query' : globals.json ? '--json' : undefined;
  if (!flag) return;
  throw new UsageError(
    `${flag}: stdout carries ${carries}, so it cannot also hold the run's JSON summary`,
    `use ${instead}`,
    'conflicting_options',
  );
}
