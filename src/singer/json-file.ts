import { UsageError } from '../errors.js';
import { parseJson } from '../json/exact-json.js';
import { isExactNumber } from '../lib/exact-number.js';
import { readBoundedRegularFile } from '../lib/regular-file.js';

/** Config, state and catalog files are small: a bigger one is a wrong path, not a document. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * A JSON document of the tap or the target (--config; the tap's --state, --catalog), its numbers
 * exact. Only a regular file is read (a FIFO, /dev/zero or a link to either is refused before a
 * byte is read), at most 64 MiB (the bound holds while reading), a chunk at a time, so SIGTERM
 * stops it. A missing or unreadable file and bad JSON are usage errors (exit 2) naming the flag,
 * the file and, for bad JSON, the line.
 */
export async function readJsonDocument(flag: string, path: string, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = (await readBoundedRegularFile(path, MAX_BYTES, signal)).toString('utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOTREG')
      throw new UsageError(
        `${flag} ${path}: ${(err as { kind?: string }).kind ?? 'not a regular file'}, not a regular file: not read`,
        'give the path of a JSON file',
      );
    if (code === 'EFBIG') throw new UsageError(`${flag} ${path}: the file is larger than ${MAX_BYTES} bytes`);
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

/**
 * The first problem of a zod parse, as `flag file: member: message`. A number too big for a
 * double (`doc` holds it as its digits) is said so, with its digits, rather than as zod's type.
 */
export function describeProblem(
  flag: string,
  path: string,
  issue: { path: PropertyKey[]; message: string } | undefined,
  doc?: unknown,
): string {
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  let value: unknown = doc;
  for (const key of issue?.path ?? []) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  if (isExactNumber(value)) {
    const why = /^-?\d+$/.test(value.text)
      ? `is too big (at most ${Number.MAX_SAFE_INTEGER})`
      : 'cannot be held exactly (too big or too precise)';
    return `${flag} ${path}: ${where}${value.text} ${why}`;
  }
  return `${flag} ${path}: ${where}${issue?.message ?? 'invalid'}`;
}
