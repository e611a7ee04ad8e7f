import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { parseJson } from '../json/exact-json.js';

/** Config, state and catalog files are small: a bigger one is a wrong path, not a document. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * A JSON document of the tap (--config, --state, --catalog), its numbers exact. A missing or
 * unreadable file and bad JSON are usage errors (exit 2) naming the flag, the file and, for
 * bad JSON, the line.
 */
export async function readJsonDocument(flag: string, path: string): Promise<unknown> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_BYTES) throw new UsageError(`${flag} ${path}: the file is larger than ${MAX_BYTES} bytes`);
    text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`${flag} ${path}: cannot read the file (${code})`, 'give the path of a JSON file');
  }
  try {
    return parseJson(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : undefined;
    throw new UsageError(`${flag} ${path}${line ? `:${line}` : ''}: not valid JSON (${(err as Error).message})`);
  }
}

/** The first problem of a zod parse, as `flag file: member: message`. */
export function describeProblem(
  flag: string,
  path: string,
  issue: { path: PropertyKey[]; message: string } | undefined,
): string {
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${flag} ${path}: ${where}${issue?.message ?? 'invalid'}`;
}
