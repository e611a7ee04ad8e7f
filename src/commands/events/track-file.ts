import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TrackEventBody } from '../../endpoints/events.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';
import { requestOf } from '../../http/endpoint.js';
import { ownRecord } from '../../json/own-record.js';
import { ColumnResolver, type ColumnRules } from '../../batch/columns/column-resolver.js';
import { runFileBatch, type FileBatchSpec, type Prepared } from '../../batch/file-run.js';
import { batchRunOptions, globalRunMode } from '../../cmdutil/batch-options.js';
import { perRowSender } from '../../batch/per-row.js';
import { shapeRow } from '../../batch/row-body.js';
import { blank, checkRow, identifierColumns } from '../../batch/row-check.js';
import { emailSchema } from '../../endpoints/identifiers.js';
import type { Context } from '../../context.js';
import { spellingsOf } from '../../input/column-names.js';
import type { InputRow } from '../../input/input-rows.js';
import type { CommandResult } from '../../output/render.js';
import { TRACK_FILE_DEFAULTS, type TrackOptions } from './track-flags.js';
import { ExactNumber } from '../../lib/exact-number.js';
import { batchDepsOf } from '../../cmdutil/context-deps.js';
import { ledgerJobDeps, ledgerRunOptions } from '../../cmdutil/ledger-flags.js';
import { keyColumnReader } from '../../ledger/key-column.js';
import { ledgerJob } from '../../ledger/ledger-job.js';
import { runLedgerJob } from '../../ledger/ledger-run.js';

// `events track --file`: one request per row (there is no batch endpoint for events).

const CODES: Record<string, string> = { email: 'invalid_email' };

/** How an events file names its columns: the body keys, and `data.KEY` for the payload. */
export const TRACK_COLUMNS: ColumnRules = {
  endpoint: 'POST /v2/events',
  keys: ['event', 'userId', 'email', 'clientEventId', 'data'],
  identifiers: ['userId', 'email'],
  text: ['event', 'userId', 'email', 'clientEventId'],
  objects: ['data'],
};

const rowSchema = z
  .looseObject({
    event: z.preprocess(blank, z.string({ message: 'the event name is required' })),
    userId: z.preprocess(blank, z.string({ message: 'expected a string' }).optional()),
    email: z.preprocess(blank, emailSchema.optional()),
    clientEventId: z.preprocess(blank, z.string({ message: 'expected a string' })),
    data: ownRecord().optional(),
  })
  .refine((b) => b.userId !== undefined || b.email !== undefined, {
    message: `no identifier: give ${spellingsOf(['userId', 'email'])}, in any case`,
  });

/**
 * The clientEventId of a row that has none: derived from the row as read (its values and its
 * place among the file's rows, not its line: every element of a JSON array on one line shares
 * line 1), so running the same file again sends the same ids and the API records each event once.
 */
export function derivedClientEventId(row: InputRow): string {
  if (row.index === undefined) throw new Error('a row without its place in the file');
  return uuidOf(`cnv-events-file\nrow ${row.index}\n${stableJson(row.values ?? {})}`);
}

/**
 * The clientEventId of a row with `--id-column COL` (docs/ledger.md, "Events"): derived from
 * the column's name and the row's value there, nothing else, so the same line keeps its id in
 * every run, wherever it moves in the file and whatever else the file holds, and a lost ledger
 * sends it again as a duplicate the API ignores.
 */
export function idColumnEventId(column: string, value: string): string {
  return uuidOf(`cnv events track --id-column\n${column}\n${value}`);
}

/** A SHA-256 of `text` shaped as a UUID: version 5 and RFC 4122 variant bits, like a name-based UUID. */
function uuidOf(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function stableJson(value: unknown): string {
  // A number kept as its digits hashes as those digits (as a number, not as the object holding them).
  if (value instanceof ExactNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function defaultsFrom(opts: TrackOptions): Record<string, unknown> {
  const defaults: Record<string, unknown> = Object.fromEntries(opts.set ?? []);
  if (opts.event !== undefined) defaults.event = opts.event;
  if (opts.data !== undefined) defaults.data = opts.data;
  return defaults;
}

export function prepareTrackRow(
  row: InputRow,
  defaults: Record<string, unknown>,
  columns: ColumnResolver,
  idOf: (row: InputRow) => string = derivedClientEventId,
): Prepared<TrackEventBody> {
  const { body: own, note } = shapeRow(row, columns);
  const body: Record<string, unknown> = { ...defaults, ...own };
  if (blank(body.clientEventId) === undefined) body.clientEventId = idOf(row);
  const identifier = String(body.clientEventId);
  const checked = checkRow(rowSchema, body, identifier, CODES) as Prepared<TrackEventBody> & { done?: undefined };
  return note !== undefined && !checked.invalid ? { ...checked, note } : checked;
}

export function runTrackFile(ctx: Context, opts: TrackOptions & { file: string }): Promise<CommandResult> {
  const defaults = defaultsFrom(opts);
  const idColumn = opts.idColumn?.trim() || undefined;
  const spec: FileBatchSpec<TrackEventBody> = {
    path: opts.file,
    job: { command: 'events track' },
    options: idColumn
      ? ledgerRunOptions(keyLeftOut(opts, idColumn), TRACK_FILE_DEFAULTS, globalRunMode(ctx.globals))
      : batchRunOptions(opts, TRACK_FILE_DEFAULTS, globalRunMode(ctx.globals)),
    columns: { rules: TRACK_COLUMNS, identifierColumns: identifierColumns(defaults, ['userId', 'email']) },
    prepare: (row, columns) => prepareTrackRow(row, defaults, columns),
    request: (items) => requestOf(ENDPOINTS.trackEvent, { body: items[0].payload }),
    send: perRowSender(async (body: TrackEventBody, signal) => {
      const result = await (await ctx.http()).call(ENDPOINTS.trackEvent, { body, signal });
      return { status: result.duplicate ? 'duplicate' : 'tracked', id: result.cnvContactId };
    }),
  };
  if (idColumn === undefined) return runFileBatch(batchDepsOf(ctx), spec);
  return runTrackLedger(ctx, spec, defaults, idColumn);
}

/** `--id-column COL`: each line's clientEventId derived from COL, and the ledger of the job sends only lines it has not sent. */
async function runTrackLedger(
  ctx: Context,
  spec: FileBatchSpec<TrackEventBody>,
  defaults: Record<string, unknown>,
  idColumn: string,
): Promise<CommandResult> {
  const readKey = keyColumnReader('--id-column', idColumn);
  return runLedgerJob(
    ledgerJobDeps(ctx, false),
    {
      ...spec,
      prepare: (row, columns) => prepareTrackRow(row, defaults, columns, (r) => idColumnEventId(idColumn, readKey(r))),
    },
    {
      job: ledgerJob(await ctx.credentials(), 'events track', undefined, idColumn),
      keyColumn: { flag: '--id-column', column: idColumn },
      track: { key: (row) => readKey(row), sentOnce: true },
      exitCode: false,
    },
  );
}

/**
 * The options with the id column left out of the body (--ignore-column), unless it names
 * something an event takes (clientEventId, data.KEY, a --map): the id identifies the line, it
 * is not sent.
 */
function keyLeftOut<T extends { ignoreColumn?: string[]; map?: string[] }>(opts: T, idColumn: string): T {
  const probe = new ColumnResolver(TRACK_COLUMNS);
  const mapped = opts.map?.some((pair) => pair.slice(0, pair.lastIndexOf('=')).trim() === idColumn);
  if (mapped || probe.resolve(idColumn).target.kind !== 'unknown') return opts;
  return { ...opts, ignoreColumn: [...(opts.ignoreColumn ?? []), idColumn] };
}
