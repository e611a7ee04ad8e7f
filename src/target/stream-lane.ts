import type { RunMode } from '../batch/batch-run-options.js';
import type { FileColumns } from '../batch/columns/file-columns.js';
import type { Prepared } from '../batch/file-run.js';
import { InvalidRowError } from '../batch/row-body.js';
import { runBatch } from '../batch/run-batch.js';
import { BatchCounts } from '../batch/summary.js';
import { isRefusal, type BatchSender, type ItemOutcome, type PreparedRow, type RowResult } from '../batch/types.js';
import type { InputRow } from '../input/input-rows.js';
import { stringifyJson } from '../lib/exact-number.js';
import type { LedgerRecord } from '../ledger/ledger-file.js';
import type { Notices } from '../output/notices.js';
import { RowQueue } from './row-queue.js';
import type { StreamSchema, StreamSink } from './stream-sink.js';
import type { TargetReport } from './target-report.js';

/** Where a failed record waits for the next run in the stream's ledger: its JSON, and the API's code. */
const KEPT = '\u0000kept:';
/** Rows queued between the reader and the engine (beyond them the reader, and so the tap, waits). */
const QUEUE_ROWS = 2_000;
/** How long sends in flight may run on after SIGTERM before they are cut (then unconfirmed). */
const GRACE_MS = 10_000;

/** What a lane takes from the run around it. */
interface LaneDeps {
  /** Ends the sends: SIGTERM, or another lane that stopped. */
  signal: AbortSignal;
  notices: Notices;
  mode: RunMode;
  report: TargetReport | undefined;
  /** After each outcome: the states it covers may be printed. */
  progressed(): void;
  /** A row ended without a durable outcome (its send failed past the retries, or was cut): the run stops reading. */
  stop(reason: unknown): void;
}

/** What the lane keeps of a row until its result. */
interface RowMeta {
  key: string | undefined;
  row: InputRow;
}

/** A run of rows through the engine beside the stream's records (a pass of removals). */
interface ExtraPass<Q> {
  rows: ReadonlyArray<PreparedRow<Q>>;
  send: BatchSender<Q>;
  chunkSize: number;
  concurrency: number;
}

/**
 * One stream of the run: its records prepared as they are read (columns resolved at its SCHEMA,
 * each row decided against the ledger or the account by its sink), sent through the batch engine
 * (runBatch: chunks, concurrency, order per key), each outcome in the report. It counts the rows
 * it was given and, in order, those whose outcome is durable: a row needing no request, one sent
 * whose outcome the ledger holds (on disk), one that failed and was kept in the ledger for the
 * next run. A row without a durable outcome (skipped: its send failed past the retries, or was cut
 * at SIGTERM) stops the count: no state after it is printed.
 */
export class StreamLane<P extends object> {
  readonly counts = new BatchCounts();
  /** Rows handed to the engine: records, rows kept by earlier runs, removals. */
  registered = 0;
  /** Rows with a durable outcome, in order. */
  durable = 0;
  broken = false;
  /** Failed rows kept this run for the next one. */
  kept = 0;
  private seq = 0;
  private readonly meta = new Map<number, RowMeta>();
  private readonly queue = new RowQueue<PreparedRow<P>>(QUEUE_ROWS);
  private readonly engine: Promise<{ stoppedBy?: unknown }>;
  private waiters: Array<() => void> = [];
  private writes: LedgerRecord[] = [];
  private readonly keptKeys = new Set<string>();
  /** Records appended to the ledger with the next durable write (the passes' own). */
  more: () => LedgerRecord[] = () => [];

  constructor(
    readonly schema: StreamSchema,
    readonly sink: StreamSink<P>,
    readonly columns: FileColumns,
    private readonly deps: LaneDeps,
  ) {
    for (const key of sink.ledger.entries.keys()) if (key.startsWith(KEPT)) this.keptKeys.add(key.slice(KEPT.length));
    const main = { rows: [], send: sink.rows.send, chunkSize: sink.chunkSize, concurrency: sink.concurrency };
    this.engine = this.run(main, this.queue, sink.rows.orderKey);
  }

  get stream(): string {
    return this.schema.stream;
  }

  /** Whether the lane stopped (a row without a durable outcome) or the run is stopping: nothing more may be sent. */
  get stopped(): boolean {
    return this.broken || this.deps.signal.aborted;
  }

  /** The records earlier runs kept (failed then), sent again before this run's. */
  async replayKept(): Promise<number> {
    let replayed = 0;
    for (const key of [...this.keptKeys]) {
      const entry = this.sink.ledger.entries.get(`${KEPT}${key}`);
      if (!entry) continue;
      const values = JSON.parse(entry.digest) as Record<string, unknown>;
      await this.push({ line: 0, values, textual: false }, 'kept from an earlier run, sent again');
      replayed++;
    }
    return replayed;
  }

  /** A RECORD's values, read at stdin line `line`: resolved, prepared and queued; returns its key. */
  record(values: Record<string, unknown>, line: number): Promise<string | undefined> {
    return this.push({ line, values, textual: false });
  }

  /** A record known without a request (one marked deleted): its outcome, in its place. */
  async decided(
    values: Record<string, unknown>,
    line: number,
    key: string | undefined,
    outcome: ItemOutcome,
  ): Promise<void> {
    const row: InputRow = { line, values, textual: false };
    await this.enqueue({ line, identifier: key ?? '', outcome }, { key, row });
  }

  /** The record's key, read from the row alone (undefined: none, or a key property missing). */
  keyOf(row: InputRow): string | undefined {
    try {
      return this.sink.key(row, this.columns.resolver);
    } catch (err) {
      if (err instanceof InvalidRowError) return undefined;
      throw err;
    }
  }

  private async push(row: InputRow, note?: string): Promise<string | undefined> {
    // A property the SCHEMA did not list: resolved now (one naming nothing makes its row invalid).
    await this.columns.more([row]);
    const prepared = this.prepare(row);
    const key = this.keyOf(row);
    await this.enqueue(note && prepared.outcome === undefined ? { ...prepared, note } : prepared, { key, row });
    return key;
  }

  private async enqueue(prepared: PreparedRow<P>, meta: RowMeta): Promise<void> {
    const seq = ++this.seq;
    this.meta.set(seq, meta);
    this.registered++;
    await this.queue.put({ ...prepared, row: seq } as PreparedRow<P>);
  }

  /** A row as the sink prepares it (decided against the ledger or the account), or its invalid outcome. */
  private prepare(row: InputRow): PreparedRow<P> {
    const { line } = row;
    let prepared: Prepared<P>;
    try {
      prepared = this.sink.rows.prepare(row, this.columns.resolver);
    } catch (err) {
      if (!(err instanceof InvalidRowError)) throw err;
      return { line, identifier: '', outcome: { status: 'invalid', error: err.code, message: err.message } };
    }
    const { identifier } = prepared;
    if (prepared.invalid) return { line, identifier, outcome: { status: 'invalid', ...prepared.invalid } };
    if (prepared.done) return { line, identifier, outcome: prepared.done };
    return { line, identifier, payload: prepared.payload, note: prepared.note };
  }

  /** The open chunk goes out (a STATE was read). */
  flush(): void {
    this.queue.flush();
  }

  /** Resolves once every row given so far has its outcome (or the lane broke). */
  async settle(): Promise<void> {
    this.flush();
    while (!this.broken && this.durable < this.registered) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Writes what the outcomes so far left to keep (failed rows, the passes' records) to the ledger, on disk. */
  async persist(): Promise<void> {
    const records = [...this.writes, ...this.more(), ...(this.sink.drain?.() ?? [])];
    this.writes = [];
    if (records.length > 0) await this.sink.ledger.record(records);
  }

  /** Rows beside the records (removals), through the engine into the same report and counts, waited for. */
  async extra<Q>(pass: ExtraPass<Q>): Promise<unknown> {
    const rows = pass.rows.map((r): PreparedRow<Q> => {
      const seq = ++this.seq;
      this.meta.set(seq, { key: r.identifier, row: { line: r.line, textual: false } });
      this.registered++;
      return { ...r, row: seq } as PreparedRow<Q>;
    });
    return (await this.run<Q>(pass, [rows])).stoppedBy;
  }

  /** No more records: the queue ends, the engine sends what is left; what stopped it, if anything. */
  async end(): Promise<unknown> {
    this.queue.close();
    return (await this.engine).stoppedBy;
  }

  private run<Q>(
    pass: ExtraPass<Q>,
    rows: AsyncIterable<PreparedRow<Q> | ReadonlyArray<PreparedRow<Q>>> | Iterable<ReadonlyArray<PreparedRow<Q>>>,
    orderKey?: (payload: Q) => string | readonly string[] | undefined,
  ) {
    const sending = this.deps.mode === 'send';
    return runBatch<Q>({
      rows: (Symbol.asyncIterator in rows ? rows : fromIterable(rows)) as AsyncIterable<PreparedRow<Q>>,
      send: pass.send,
      chunkSize: pass.chunkSize,
      concurrency: pass.concurrency,
      orderKey,
      signal: this.deps.signal,
      graceMs: GRACE_MS,
      dryRun: !sending,
      onResult: (result) => this.result(result),
    });
  }

  private result(result: RowResult): Promise<void> | undefined {
    const meta = this.meta.get(result.row!);
    this.meta.delete(result.row!);
    const key = meta?.key;
    this.counts.add(result);
    if (result.status === 'skipped') {
      if (!this.broken) this.deps.stop(new Error(result.message ?? 'a row was not sent'));
      this.broken = true;
    } else if (result.status === 'failed' && !isRefusal(result.error) && key !== undefined && meta) {
      this.keep(key, meta.row, result.error);
    } else if (key !== undefined && this.keptKeys.has(key)) {
      this.keptKeys.delete(key);
      this.writes.push(['del', `${KEPT}${key}`]);
    }
    if (!this.broken) this.durable++;
    for (const wake of this.waiters.splice(0)) wake();
    this.deps.progressed();
    // A plan's report holds the changes, and the rows that could not be sent.
    if (this.deps.mode !== 'send' && result.status !== 'invalid') return undefined;
    return this.deps.report?.write(reportLine(this.stream, key, result));
  }

  /** A failed row (not a refusal of what it holds): kept in the ledger, sent again first by the next run. */
  private keep(key: string, row: InputRow, code: string | undefined): void {
    if (this.deps.mode !== 'send') return;
    this.kept++;
    this.keptKeys.add(key);
    this.writes.push(['put', `${KEPT}${key}`, stringifyJson(row.values ?? {}), 'ok', null, code ?? null]);
  }
}

/** A row's line in the report. */
function reportLine(stream: string, key: string | undefined, r: RowResult): Record<string, unknown> {
  return {
    type: 'row',
    stream,
    line: r.line,
    key: key ?? null,
    identifier: r.identifier,
    status: r.status,
    id: r.id ?? null,
    error: r.error ?? null,
    message: r.message ?? null,
  };
}

async function* fromIterable<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
