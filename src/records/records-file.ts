import { stat } from 'node:fs/promises';
import type { ColumnResolver, ColumnRules } from '../batch/columns/column-resolver.js';
import type { BatchRunOptions } from '../batch/batch-run-options.js';
import { BlankCells, numberColumn } from '../batch/field-cells.js';
import type { FileBatchSpec } from '../batch/file-run.js';
import { renameRow } from '../batch/row-body.js';
import type { BatchItem, ItemOutcome } from '../batch/types.js';
import { ENDPOINTS } from '../endpoints/endpoints.js';
import { listCustomObjectFields } from '../endpoints/field-pages.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import type { RecordInput } from '../endpoints/records.js';
import { ApiError, ResponseShapeError, TransientError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { requestOf } from '../http/endpoint.js';
import { InputFileError } from '../input/input-reader.js';
import { NumberConvention } from '../input/number-convention.js';
import { CheckCollector } from './check.js';
import { recordOutcome, toFileRow } from './outcome.js';
import { DEDUP_KEY, definitionMap, prepareRecord, type EmptyCells } from './prepare.js';

// The file run of custom-object records, which `records upsert` and `records sync` share: the
// columns (clientDedupKey and the object's fields by key or label), the values coerced by the
// field definitions, chunks of up to 200 in file order per key, each record's outcome.

/** What a records file run takes from the command around it. */
export interface RecordsDeps {
  http(): Promise<HttpClient>;
  signal: AbortSignal;
  warn(message: string): void;
}

/** The flags of a records file run. */
interface RecordsOptions {
  customObjectId: string;
  /** The input file, or `-`. */
  file: string;
  /** The command, as its report names it. */
  command: string;
  runOptions: BatchRunOptions;
  /** false with --no-coerce. */
  coerce?: boolean;
  emptyCells: EmptyCells;
  /** --check: compare the columns with the definitions, validate every row, send nothing. */
  check?: boolean;
}

/** How a records file names its columns: clientDedupKey, and the custom object's fields by key or label. */
function recordColumns(customObjectId: string): ColumnRules {
  return {
    endpoint: `POST /v2/custom-objects/${customObjectId}/records/batch`,
    keys: [DEDUP_KEY, 'fields'],
    identifiers: [DEDUP_KEY],
    text: [DEDUP_KEY],
    objects: ['fields'],
    fieldParents: ['fields'],
    bareColumnsAreFields: true,
  };
}

/**
 * The file run of a records file: the definitions read once (unless --no-coerce), each row
 * prepared and coerced, the rows of one record in file order, each chunk one batch request.
 * With --check, `collector` gathers the column comparison (docs/records.md).
 */
export async function recordsFileSpec(
  deps: RecordsDeps,
  o: RecordsOptions,
): Promise<{ spec: FileBatchSpec<RecordInput>; collector: CheckCollector | undefined }> {
  const { customObjectId } = o;
  if (o.file !== '-') await assertReadable(o.file);
  const check = o.check === true;
  // Read once, before any row.
  const definitions = o.coerce !== false || check ? await readDefinitions(deps, customObjectId, check) : undefined;
  // The check judges each column by what the run's resolver makes of it (a label, a --map, a left-out column).
  let resolver: ColumnResolver | undefined;
  const collector =
    check && definitions ? new CheckCollector(definitions, (column) => resolver!.resolve(column).target) : undefined;
  // A check validates as a coercing run would, even with --no-coerce.
  const coercing = o.coerce !== false || check;
  const numbers = new NumberConvention(o.runOptions.numbers);
  const blanks = new BlankCells('--empty-cells null clears the field instead');
  const prepareOptions = {
    definitions: coercing ? definitions : undefined,
    emptyCells: o.emptyCells,
    coerce: { numbers },
  };
  const typesNumbers = [...(prepareOptions.definitions?.values() ?? [])].some(
    (d) => d.dataType.toUpperCase() === 'NUMBER',
  );
  const request = (items: BatchItem<RecordInput>[]) =>
    requestOf(ENDPOINTS.upsertRecords, { params: { customObjectId }, body: { records: items.map((i) => i.payload) } });
  const spec: FileBatchSpec<RecordInput> = {
    path: o.file,
    job: { command: o.command, target: customObjectId },
    options: o.runOptions,
    idColumn: 'id',
    columns: {
      rules: recordColumns(customObjectId),
      // Without coercion (--no-coerce, or definitions that cannot be read) every other column is a field key as written.
      definitions: async () => (coercing && definitions ? new Map([['fields', definitions]]) : undefined),
      keepUnknown: check,
      identifierColumns: [DEDUP_KEY],
    },
    prepare(row, columns) {
      resolver = columns;
      numbers.at(row.line);
      const prepared = prepareRecord(renameRow(row, columns, check).values ?? {}, {
        ...prepareOptions,
        csv: row.textual === true,
        blanks,
      });
      collector?.observe(row.line, row.values ?? {}, prepared);
      return toFileRow(prepared);
    },
    cells: {
      numbers,
      blanks,
      // JSON rows are typed too, and may name fields inside "fields".
      scanWanted: (input, columns) => typesNumbers && (input.format !== 'csv' || numberColumn(columns)),
      scan: (row, columns) =>
        void prepareRecord(renameRow(row, columns, check).values ?? {}, {
          ...prepareOptions,
          csv: row.textual === true,
        }),
    },
    request,
    // Rows of one record wait for the earlier chunk holding it: the last row in the file wins.
    orderKey: (record) => record.clientDedupKey,
    send: (items, signal) => sendChunk(deps, customObjectId, items, signal),
  };
  return { spec, collector };
}

/** What a run does without the definitions. */
const UNCOERCED = 'values are sent as they are in the file, as with --no-coerce';

/**
 * The custom object's field definitions. When they cannot be read (the API refuses the list,
 * answers off-contract, or stays unreachable) or none is listed for this custom object (an
 * unknown one, or a server whose list does not show it), a run warns and goes on without
 * coercion, as --no-coerce would, and the API judges each record (an unknown custom object
 * then stops the run at the first chunk). A --check, which exists to compare the file with the
 * definitions, fails when they cannot be read.
 */
async function readDefinitions(
  deps: RecordsDeps,
  customObjectId: string,
  check: boolean,
): Promise<Map<string, FieldDefinition> | undefined> {
  let fields: FieldDefinition[];
  try {
    fields = await listCustomObjectFields(await deps.http(), customObjectId, deps.signal);
  } catch (err) {
    if (check || !(err instanceof ApiError || err instanceof TransientError || err instanceof ResponseShapeError))
      throw err;
    deps.warn(`could not read the field definitions (${err.code}: ${err.message}); ${UNCOERCED}`);
    return undefined;
  }
  if (fields.length === 0) {
    const none = `no field definitions are listed for custom object ${customObjectId} (unknown, or without fields)`;
    deps.warn(`${none}; ${check ? 'every column is unknown' : UNCOERCED}`);
    if (!check) return undefined;
  }
  return definitionMap(fields);
}

// Before the definitions are read: a missing file is a local error, even offline.
async function assertReadable(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new InputFileError(path, info ? 'is not a file' : 'no such file');
}

async function sendChunk(
  deps: RecordsDeps,
  customObjectId: string,
  items: BatchItem<RecordInput>[],
  signal: AbortSignal,
): Promise<ItemOutcome[]> {
  try {
    const res = await (
      await deps.http()
    ).call(ENDPOINTS.upsertRecords, {
      params: { customObjectId },
      body: { records: items.map((i) => i.payload) },
      signal,
    });
    return items.map((_, i) => recordOutcome(res.results[i]));
  } catch (err) {
    // A 400 refuses this chunk only (not one record's values); anything else (auth, not found, transient) stops the run.
    if (err instanceof ApiError && err.status === 400)
      return items.map(() => ({ status: 'failed', error: err.code, message: err.message }));
    throw err;
  }
}
