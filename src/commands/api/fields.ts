import type { Readable } from 'node:stream';
import { LocalFileError, UsageError } from '../../errors.js';
import { MAX_WRITE_BYTES, sizeText } from '../../limits/limits.js';
import { exactNumber } from '../../json/exact-json.js';
import { openReadStream, readWhole, stopOnAbort } from '../../files/file-streams.js';
import { MAX_JSON_DEPTH } from '../../input/input-rows.js';
import { stringifyJson } from '../../lib/exact-number.js';

/** One -f/-F as given: its flag, key path and raw value. */
export interface FieldArg {
  flag: '-f' | '-F';
  text: string;
}

/** Commander collector keeping -f and -F in the order given. */
export const collectField =
  (flag: FieldArg['flag']) =>
  (text: string, previous: FieldArg[] = []): FieldArg[] => [...previous, { flag, text }];

/**
 * -F's typing, as gh's: true, false, null and numbers become JSON values, `@file` the file's
 * content (`@-` stdin), anything else stays a string. -f is always a string.
 */
async function fieldValue(arg: FieldArg, value: string, stdin: Readable, signal?: AbortSignal): Promise<unknown> {
  if (arg.flag === '-f') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  // Every digit kept: 9007199254740993 goes out as written, not as the double nearest it.
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return exactNumber(value);
  if (value.startsWith('@'))
    return readValueFile(value.slice(1), `-F ${arg.text.slice(0, arg.text.indexOf('='))}=@`, stdin, signal);
  return value;
}

/**
 * Reads `--input FILE|-` or an `-F k=@file` value: the whole text, at most MAX_WRITE_BYTES (what
 * cnv writes in one body: a record cnv stored is then always read back, docs/guarantees.md), read
 * as a stream so that a huge file or an endless FIFO is refused without being held; a FIFO that
 * no one writes to is waited on only until `signal`.
 */
export async function readValueFile(
  path: string,
  flag: string,
  stdin: Readable,
  signal?: AbortSignal,
): Promise<string> {
  if (path === '') throw new UsageError(`${flag}: give a file name (or - for stdin)`);
  const name = path === '-' ? 'stdin' : path;
  let source: Readable | undefined;
  let bytes: Buffer;
  try {
    source = path === '-' ? stopOnAbort(stdin, signal) : await openReadStream(path, signal);
    bytes = await readWhole(
      source,
      MAX_WRITE_BYTES,
      () => new UsageError(`${flag}${name}: larger than ${sizeText(MAX_WRITE_BYTES)}`),
    );
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (signal?.aborted) throw signal.reason;
    throw (
      LocalFileError.from(err, 'read', path) ??
      new UsageError(
        `${flag}${name}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      )
    );
  } finally {
    if (source !== stdin) source?.destroy();
  }
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * The -f/-F pairs as one object. `key[sub]=v` nests and `key[]=v` appends, as in gh, so a body
 * like `{"occurredAt":{"start":"…"}}` needs no file. Objects made from the user's keys have no
 * prototype: `__proto__[email]=x` is a member named `__proto__`, never Object.prototype.
 */
export async function fieldsObject(
  args: FieldArg[],
  stdin: Readable,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const out = record();
  for (const arg of args) {
    const eq = arg.text.indexOf('=');
    if (eq <= 0) throw new UsageError(`${arg.flag} ${arg.text}: expected key=value`);
    const path = keyPath(arg.text.slice(0, eq), arg);
    const value = await fieldValue(arg, arg.text.slice(eq + 1), stdin, signal);
    place(out, path, value, arg);
  }
  return out;
}

/** `a[b][]` as ['a', 'b', '']; '' means "append". */
function keyPath(key: string, arg: FieldArg): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`${arg.flag} ${arg.text}: a key is a name, optionally followed by [sub] or [] parts`);
  const rest = [...m[2].matchAll(/\[([^[\]]*)\]/g)].map((p) => p[1]);
  if (rest.slice(0, -1).includes('')) throw new UsageError(`${arg.flag} ${arg.text}: [] may only end a key`);
  // As for an input file's rows: deeper would overflow recursive code (JSON.stringify) on the way out.
  if (rest.length >= MAX_JSON_DEPTH)
    throw new UsageError(`${arg.flag} ${arg.text.slice(0, 40)}...: a key nests at most ${MAX_JSON_DEPTH} levels`);
  return [m[1], ...rest];
}

/** An object for the user's keys: without a prototype, so no key reaches Object.prototype. */
function record(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function place(target: Record<string, unknown>, path: string[], value: unknown, arg: FieldArg): void {
  let node: Record<string, unknown> = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    const appending = path[i + 1] === '' && i + 1 === path.length - 1;
    if (appending) {
      const list = node[key] ?? [];
      if (!Array.isArray(list))
        throw new UsageError(`${arg.flag} ${arg.text}: "${key}" is already set to a value that is not a list`);
      list.push(value);
      node[key] = list;
      return;
    }
    const child = node[key] ?? record();
    if (typeof child !== 'object' || child === null || Array.isArray(child)) {
      throw new UsageError(`${arg.flag} ${arg.text}: "${key}" is already set to a value that is not an object`);
    }
    node[key] = child;
    node = child as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

/** A query string value: objects and arrays as JSON, null as empty. */
export function queryValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? stringifyJson(value) : String(value);
}
