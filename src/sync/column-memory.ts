import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { ResolvedColumn } from '../batch/columns/column-resolver.js';
import { LocalFileError, UsageError } from '../errors.js';
import { stateFileStem } from '../exporter/state-key.js';
import { quoteInput } from '../input/input-rows.js';
import { readRegularFileSync, writeRegularFileSync } from '../lib/regular-file.js';

/** How one column resolved: where it went, and what decided it. */
interface Resolution {
  column: string;
  /** `email`, `fields.KEY`, `companyFields.KEY`, `body.NAME`, or `-` (not sent). */
  target: string;
  /** The target as a line shows it: `-` with its reason. */
  shown: string;
  /**
   * What the user said of it: `name` (its own name), `map:TARGET`, `ignore`, `pass`. A change of
   * these is the user's, not the account's.
   */
  instruction: string;
}

const resolutionSchema = z.object({
  column: z.string(),
  target: z.string(),
  shown: z.string(),
  instruction: z.string(),
});
const memorySchema = z.object({
  version: z.literal(1),
  key: z.string(),
  files: z.array(z.object({ input: z.string(), at: z.string(), columns: z.array(resolutionSchema) })),
});
type Memory = z.infer<typeof memorySchema>;

/** One column that resolves otherwise than at the last sync of its file, by the same instruction. */
export interface ColumnChange {
  column: string;
  before: string;
  after: string;
}

/** What settling a run's columns takes. */
interface ColumnDeps {
  stateDir: { path: string };
  notices: { warn(message: string): void; info(message: string): void };
  clock: { now(): number };
}

/**
 * Under the sync's lock, before any row: refuses the run (exit 2, one line per column) when a
 * column resolves otherwise than at the last sync of this file, unless --accept-columns. Returns
 * what remembers the resolution, called once the run gets to its rows (a run that fails before
 * leaves no record); it remembers nothing when the run changes nothing (--plan, --dry-run).
 */
export function settleColumns(
  deps: ColumnDeps,
  opts: { key: string; path: string; acceptColumns: boolean; rememberColumns: boolean },
  columns: readonly ResolvedColumn[],
): () => void {
  const file = columnMemoryPath(deps.stateDir.path, opts.key);
  const input = inputName(opts.path);
  const changes = columnChanges(file, opts.key, input, columns);
  const shown = opts.path === '-' ? 'stdin' : opts.path;
  for (const c of changes) {
    const line = `${quoteInput(c.column)}: ${c.before} -> ${c.after}`;
    if (opts.acceptColumns)
      deps.notices.info(`note: column ${line} since the last sync of ${shown} (--accept-columns)`);
    else deps.notices.warn(`column ${line} since the last sync of ${shown}`);
  }
  if (changes.length > 0 && !opts.acceptColumns) throw columnsChangedError(shown, changes);
  return () => {
    if (opts.rememberColumns) rememberColumns(file, opts.key, input, columns, new Date(deps.clock.now()).toISOString());
  };
}

/** The file beside the snapshot where a sync remembers how each input file's columns resolved. */
export function columnMemoryPath(configDir: string, key: string): string {
  return join(configDir, 'sync', `${stateFileStem(key)}.columns.json`);
}

/** How the input is named in the memory: its absolute path, or `-` for stdin. */
export function inputName(path: string): string {
  return path === '-' ? '-' : resolve(path);
}

/** A column's resolution as remembered; undefined for a column that names nothing (the file is refused for it anyway). */
export function resolutionOf(c: ResolvedColumn): Resolution | undefined {
  const t = c.target;
  const instruction =
    c.mapTarget !== undefined
      ? `map:${c.mapTarget}`
      : c.via === '--pass-column'
        ? 'pass'
        : t.kind === 'skip' && t.why === 'ignored (--ignore-column)'
          ? 'ignore'
          : 'name';
  const at = (target: string, shown = target): Resolution => ({ column: c.column, target, shown, instruction });
  switch (t.kind) {
    case 'key':
      return at(t.key);
    case 'field':
    case 'nested':
      return at(`${t.parent}.${t.key}`);
    case 'pass':
      return at(`body.${t.key}`);
    case 'skip':
      return at('-', `not sent (${t.why})`);
    case 'unknown':
      return undefined;
  }
}

/**
 * Compares the columns of this run with the last sync of the same input file: a column whose
 * target moved while nothing the user said of it changed (a field relabelled, created or deleted
 * in the account) is a change. Columns new to the file, and those the user mapped otherwise, are not.
 */
export function columnChanges(
  memoryFile: string,
  key: string,
  input: string,
  columns: readonly ResolvedColumn[],
): ColumnChange[] {
  const last = new Map(
    (readMemory(memoryFile, key)?.files.find((f) => f.input === input)?.columns ?? []).map((r) => [r.column, r]),
  );
  const changes: ColumnChange[] = [];
  for (const c of columns) {
    const now = resolutionOf(c);
    const then = last.get(c.column);
    if (now && then && then.instruction === now.instruction && then.target !== now.target)
      changes.push({ column: c.column, before: then.shown, after: now.shown });
  }
  return changes;
}

/** Records this run's resolution of the input's columns (columns absent from this run are kept as they were). */
export function rememberColumns(
  memoryFile: string,
  key: string,
  input: string,
  columns: readonly ResolvedColumn[],
  at: string,
): void {
  const memory: Memory = readMemory(memoryFile, key) ?? { version: 1, key, files: [] };
  const entry = memory.files.find((f) => f.input === input);
  const merged = new Map((entry?.columns ?? []).map((r) => [r.column, r]));
  for (const c of columns) {
    const now = resolutionOf(c);
    if (now) merged.set(c.column, now);
  }
  const files = [...memory.files.filter((f) => f !== entry), { input, at, columns: [...merged.values()] }];
  try {
    // Whole or not at all (a temp file beside it, fsync, rename; mode 0600), never through a link.
    writeRegularFileSync(memoryFile, JSON.stringify({ ...memory, files }), { mode: 0o600, link: 'refuse' });
  } catch (err) {
    throw LocalFileError.from(err, 'sync column record', memoryFile) ?? err;
  }
}

/** The refusal of a run whose columns moved: one line per column, and the flag that accepts them. */
export function columnsChangedError(file: string, changes: readonly ColumnChange[]): UsageError {
  const lines = changes.map((c) => `${quoteInput(c.column)}: ${c.before} -> ${c.after}`);
  const what = changes.length === 1 ? 'a column names' : `${changes.length} columns name`;
  const why = 'a field of the account was renamed, created or deleted';
  return new UsageError(
    `${file}: ${what} another target than at the last sync of this file (${why}): ${lines.join('; ')}`,
    'check them (cnv fields list); send where they resolve now with --accept-columns, ' +
      "or keep a target with --map 'COLUMN=fields.KEY' (by key: a rename never moves it)",
    'columns_changed',
  );
}

/** The memory, or undefined when there is none or it does not parse (then nothing is compared: a first run). */
function readMemory(path: string, key: string): Memory | undefined {
  try {
    // Never blocks on a FIFO put in its place, never follows a link: such a memory is no memory.
    const memory = memorySchema.parse(JSON.parse(readRegularFileSync(path, { nofollow: true }).toString('utf8')));
    return memory.key === key ? memory : undefined;
  } catch {
    return undefined;
  }
}
