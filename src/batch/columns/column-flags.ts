import { UsageError } from '../../errors.js';
import { openReadStream, readWhole } from '../../files/file-streams.js';
import { quoteInput } from '../../input/input-rows.js';
import { turn } from '../../lib/turn.js';
import type { ColumnFlags } from './column-resolver.js';

/** The column flags as commander collects them. */
export interface ColumnFlagValues {
  map?: string[];
  mapFile?: string;
  ignoreColumn?: string[];
  ignoreUnknownColumns?: boolean;
  passColumn?: string[];
  /** contacts sync --key-column: left out when it names nothing the endpoint takes. */
  keyColumn?: string;
}

/**
 * The column flags, with --map-file read: `COLUMN=TARGET` lines (split at the last `=`, since a
 * target never holds one and a column may), blank lines and `#` comments skipped. A --map
 * given on the command line wins over the file's line for the same column.
 */
export async function readColumnFlags(opts: ColumnFlagValues, signal?: AbortSignal): Promise<ColumnFlags> {
  const map: Array<{ column: string; target: string; source: string }> = [];
  for (const pair of opts.map ?? []) map.push({ ...splitPair(pair, '--map'), source: '--map' });
  if (opts.mapFile !== undefined) {
    const text = await readMapFile(opts.mapFile, signal);
    // The first entry of each column, looked up by name: a search of the list for every line
    // was quadratic (50,000 lines: minutes of CPU, deaf to signals).
    const first = new Map<string, { source: string }>();
    for (const m of map) if (!first.has(m.column)) first.set(m.column, m);
    const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
    for (let i = 0; i < lines.length; i++) {
      if (i % 4096 === 4095) await turn(signal);
      const line = lines[i];
      if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
      const source = `${opts.mapFile} line ${i + 1}`;
      const pair = splitPair(line, source);
      const earlier = first.get(pair.column);
      if (earlier && earlier.source !== '--map')
        throw new UsageError(
          `${source}: column ${quoteInput(pair.column)} is mapped already (${earlier.source}); give it once`,
        );
      if (!earlier) {
        const entry = { ...pair, source };
        map.push(entry);
        first.set(pair.column, entry);
      }
    }
  }
  const seen = new Map<string, string>();
  for (const m of map) {
    const before = seen.get(m.column);
    if (before && m.source === '--map')
      throw new UsageError(
        `--map: column ${quoteInput(m.column)} is mapped twice (${before} and ${m.target}); give it once`,
      );
    seen.set(m.column, m.target);
  }
  return {
    map,
    ignore: opts.ignoreColumn ?? [],
    ignoreUnknown: opts.ignoreUnknownColumns === true,
    pass: opts.passColumn ?? [],
    ...(opts.keyColumn === undefined ? {} : { key: opts.keyColumn }),
  };
}

/** A map file is small: read as a stream (a FIFO's wait ends with a signal), at most 1 MiB (`/dev/zero` is no map). */
async function readMapFile(path: string, signal?: AbortSignal): Promise<string> {
  try {
    const tooLarge = () =>
      new UsageError(`--map-file: ${path} is larger than 1 MiB: not a map file`, undefined, 'invalid_input');
    return (await readWhole(await openReadStream(path, signal), MAX_MAP_FILE_BYTES, tooLarge)).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError || signal?.aborted) throw err;
    throw new UsageError(`--map-file: cannot read ${path}: ${readFailure(err)}`, undefined, 'invalid_input');
  }
}

/** Why a map file could not be read, in a few words. */
function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a directory';
  return (err as Error).message;
}

const MAX_MAP_FILE_BYTES = 1024 * 1024;

function splitPair(text: string, source: string): { column: string; target: string } {
  const eq = text.lastIndexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `${source}: expected COLUMN=TARGET (e.g. 'First Name=firstName', or 'Record ID=-' to leave it out), ` +
        `got ${quoteInput(text)}`,
    );
  return { column: text.slice(0, eq).trim(), target: text.slice(eq + 1).trim() };
}
