import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LocalFileError } from '../errors.js';
import { readRegularFileSync, writeRegularFileSync } from '../lib/regular-file.js';

// The ledger's two files (docs/ledger.md, "The files"): a base, written whole at the end of a run
// and sealed by one SHA-256 over its bytes, and a journal, appended to after each outcome, each
// line chaining the SHA-256 of the one before from a first line that names the base's seal.

/** What the ledger knows of one key: the digest of the values last sent, and how the API took them. */
export interface LedgerEntry {
  digest: string;
  /** `ok`: the API took these values; `refused`: it refused them for what they hold (sent again only once they change). */
  state: EntryState;
  /** The id the API answered (cnvContactId, record id): for a membership, the contact the job added. */
  id?: string;
  /** The API's code of a refusal. */
  code?: string;
}

type EntryState = 'ok' | 'refused';

/** One run as the ledger keeps it (`cnv ledger show`). */
export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  /** complete, partial, failed, interrupted (the file run's status). */
  status: string;
  counts: Record<string, number>;
}

/** A line of the journal (after its first): a key's outcome, a key forgotten, a run's end. */
export type LedgerRecord =
  ['put', string, string, EntryState, string | null, string | null] | ['del', string] | ['run', RunInfo];

const runSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  status: z.string(),
  counts: z.record(z.string(), z.number()),
});

const jobSchema = z.object({
  key: z.string(),
  account: z.string(),
  command: z.string(),
  target: z.string().nullable(),
  keyColumn: z.string(),
});

const headerSchema = z.object({
  cnvLedger: z.literal(1),
  job: jobSchema,
  entries: z.number().int().nonnegative(),
  /** The chain hash of the last journal line this base holds: a journal already compacted is told from a damaged one. */
  compacted: z.string().nullable(),
  writtenAt: z.string(),
  lastRun: runSchema.nullable(),
});

/** The base's first line. */
export type BaseHeader = z.infer<typeof headerSchema>;

/** A file of the ledger as read: not there, damaged (why), or its content. */
type Read<T> = { kind: 'missing' } | { kind: 'damaged'; why: string } | ({ kind: 'ok' } & T);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The base's text (the header, one line per entry, the seal over everything before it) and its seal. */
export function baseText(
  header: Omit<BaseHeader, 'entries'>,
  entries: ReadonlyMap<string, LedgerEntry>,
): { text: string; seal: string } {
  const lines = [JSON.stringify({ ...header, entries: entries.size })];
  for (const [key, e] of entries) lines.push(JSON.stringify([key, e.digest, e.state, e.id ?? null, e.code ?? null]));
  const body = lines.join('\n') + '\n';
  const seal = sha256(body);
  return { text: `${body}${JSON.stringify({ sha256: seal })}\n`, seal };
}

/** Reads a base: a missing file, a damaged one (the seal does not match, a line does not read), or its header and entries. */
export function readBase(path: string): Read<{ header: BaseHeader; entries: Map<string, LedgerEntry>; seal: string }> {
  const text = readText(path, 'ledger');
  if (text === undefined) return { kind: 'missing' };
  const sealAt = text.lastIndexOf('\n', text.length - 2) + 1;
  if (!text.endsWith('\n') || sealAt <= 0) return damaged('it is cut short (no seal at its end)');
  const seal = parse(text.slice(sealAt), z.object({ sha256: z.string() }))?.sha256;
  const body = text.slice(0, sealAt);
  if (seal === undefined) return damaged('it is cut short (no seal at its end)');
  if (sha256(body) !== seal) return damaged('its SHA-256 is not the one written with it: it was edited or cut');
  const headerEnd = body.indexOf('\n');
  const header = parse(body.slice(0, headerEnd), headerSchema);
  if (!header) return damaged('its first line is not a ledger header this version of cnv writes');
  // One JSON.parse for every entry line (a line break is never inside JSON text): a parse a line cost 5x more.
  const rows = entryLines(body.slice(headerEnd + 1, -1));
  const entries = new Map<string, LedgerEntry>();
  for (let i = 0; i < (rows?.length ?? 0); i++) {
    const entry = entryOf(rows![i]);
    if (!entry) return damaged(`line ${i + 2} is not an entry`);
    entries.set(entry[0], entry[1]);
  }
  if (!rows) return damaged('an entry line does not read as JSON');
  if (entries.size !== header.entries)
    return damaged(`it holds ${entries.size} entries, not the ${header.entries} it says`);
  return { kind: 'ok', header, entries, seal };
}

/** The journal's first line: the base it continues and the job. */
export function journalStart(baseSeal: string, jobKey: string): { text: string; hash: string } {
  return chained('', ['begin', baseSeal, jobKey]);
}

/** A journal line after `prev` (the chain hash of the line before). */
export function journalLine(prev: string, record: LedgerRecord): { text: string; hash: string } {
  return chained(prev, record);
}

function chained(prev: string, record: unknown): { text: string; hash: string } {
  const json = JSON.stringify(record);
  const hash = sha256(`${prev}\n${json}`);
  return { text: `${json}\t${hash}\n`, hash };
}

/** A journal as read: the base seal its first line names, its records, the last chain hash, and whether a last line was cut. */
interface JournalContent {
  baseSeal: string;
  jobKey: string;
  records: LedgerRecord[];
  last: string;
  /** A last line without its line end: a write a kill cut short, left out (its outcomes are sent again). */
  torn: boolean;
  /** Bytes of its whole lines: where a run appends after a cut line (cut off first). */
  bytes: number;
}

/** Reads a journal, checking each line's chain hash: an edited, removed or inserted line breaks the chain. */
export function readJournal(path: string): Read<JournalContent> {
  const text = readText(path, 'ledger journal');
  if (text === undefined) return { kind: 'missing' };
  const end = text.lastIndexOf('\n') + 1;
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  const records: LedgerRecord[] = [];
  let prev = '';
  let begin: [string, string] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const tab = lines[i].lastIndexOf('\t');
    const json = tab < 0 ? '' : lines[i].slice(0, tab);
    if (tab < 0 || sha256(`${prev}\n${json}`) !== lines[i].slice(tab + 1))
      return damaged(`line ${i + 1} of its journal does not follow the one before (its SHA-256 chain is broken)`);
    prev = lines[i].slice(tab + 1);
    const value = parse(json, z.unknown());
    if (i === 0) {
      begin = beginOf(value);
      if (!begin) return damaged('its journal does not start with the line naming its base');
      continue;
    }
    const record = recordOf(value);
    if (!record) return damaged(`line ${i + 1} of its journal is not a ledger record`);
    records.push(record);
  }
  if (!begin) return damaged('its journal is empty');
  const bytes = Buffer.byteLength(text.slice(0, end));
  return { kind: 'ok', baseSeal: begin[0], jobKey: begin[1], records, last: prev, torn: end < text.length, bytes };
}

/** Writes a file of the ledger whole (temp, fsync, rename), never through a link: a link there is refused by name (exit 8). */
export function writeKept(path: string, text: string): void {
  try {
    writeRegularFileSync(path, text, { mode: 0o600, link: 'refuse' });
  } catch (err) {
    throw LocalFileError.from(err, 'ledger', path) ?? err;
  }
}

/** A kept file's text, undefined when missing; a link, FIFO or directory at its path is exit 8 naming it. */
function readText(path: string, what: string): string | undefined {
  try {
    return readRegularFileSync(path, { nofollow: true }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw LocalFileError.from(err, what, path) ?? err;
  }
}

/** The entry lines as one JSON array, or undefined when one does not parse. */
function entryLines(text: string): unknown[] | undefined {
  if (text === '') return [];
  try {
    return JSON.parse(`[${text.replaceAll('\n', ',')}]`) as unknown[];
  } catch {
    return undefined;
  }
}

function damaged(why: string): { kind: 'damaged'; why: string } {
  return { kind: 'damaged', why };
}

function parse<T>(text: string, schema: z.ZodType<T>): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

const isText = (v: unknown): v is string => typeof v === 'string';
const textOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isState = (v: unknown): v is EntryState => v === 'ok' || v === 'refused';

/** `[key, digest, state, id, code]`, a base's entry line. */
function entryOf(value: unknown): [string, LedgerEntry] | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [key, digest, state, id, code] = value as unknown[];
  if (!isText(key) || !isText(digest) || !isState(state) || !textOrNull(id) || !textOrNull(code)) return undefined;
  return [key, { digest, state, ...(id === null ? {} : { id }), ...(code === null ? {} : { code }) }];
}

function beginOf(value: unknown): [string, string] | undefined {
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== 'begin') return undefined;
  return isText(value[1]) && isText(value[2]) ? [value[1], value[2]] : undefined;
}

function recordOf(value: unknown): LedgerRecord | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value[0] === 'del' && value.length === 2 && isText(value[1])) return ['del', value[1]];
  if (value[0] === 'run' && value.length === 2) {
    const run = runSchema.safeParse(value[1]);
    return run.success ? ['run', run.data] : undefined;
  }
  if (value[0] !== 'put' || value.length !== 6) return undefined;
  const entry = entryOf(value.slice(1));
  return entry
    ? ['put', entry[0], entry[1].digest, entry[1].state, entry[1].id ?? null, entry[1].code ?? null]
    : undefined;
}
