// What each target holds after a run, by key (the last line of a key wins in a JSONL file, as an
// upserting reader of it would take them).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byKey, parseExact } from './compare.mjs';
import { STREAMS } from './account.mjs';

const lines = (text) => text.split('\n').filter((l) => l.trim());

/** The lines of target-jsonl's file of `stream` in `dir` (0 when it has none). */
export const jsonlLineCount = (dir, stream) =>
  existsSync(join(dir, `${stream}.jsonl`)) ? lines(readFileSync(join(dir, `${stream}.jsonl`), 'utf8')).length : 0;

export function jsonlRows(dir, stream) {
  const file = join(dir, `${stream}.jsonl`);
  if (!existsSync(file)) return new Map();
  return byKey(lines(readFileSync(file, 'utf8')).map(parseExact), STREAMS[stream].key);
}

/** The table of `stream` in `schema`, each row as JSON (timestamps in UTC, numerics exact). */
export async function pgRows(pg, schema, stream) {
  const exists = (await pg.psql(`select to_regclass('"${schema}"."${stream}"') is not null`)).trim() === 't';
  if (!exists) return new Map();
  const out = await pg.psql(`set timezone = 'UTC'; select row_to_json(t) from "${schema}"."${stream}" t`);
  return byKey(lines(out).map(parseExact), STREAMS[stream].key);
}
