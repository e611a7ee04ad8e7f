import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { RunMode } from '../batch/batch-run-options.js';
import { FileColumns } from '../batch/columns/file-columns.js';
import { showColumns } from '../batch/file-open.js';
import { UsageError } from '../errors.js';
import type { InputRow } from '../input/input-rows.js';
import type { LayerDeps } from '../output/layer-deps.js';
import { LaneMirror } from './lane-mirror.js';
import { recordKeyReader } from './record-key.js';
import { readMessage, type SingerMessage } from './singer-input.js';
import { StateGate } from './state-gate.js';
import type { StreamSchema, StreamSink } from './stream-sink.js';
import { StreamLane } from './stream-lane.js';
import { ignoredByDefault, streamConfig, type TargetConfig } from './target-config.js';
import { TargetReport } from './target-report.js';
import { LaneStopped, windDown } from './target-end.js';

/** What a target run takes from the command around it: narrow on purpose (never the CLI's Context). */
interface TargetDeps extends Pick<LayerDeps, 'clock' | 'signal' | 'notices' | 'stdout'> {
  /** Where the tap's messages come from. */
  stdin: Readable;
}

/** What one run is asked for. */
interface TargetRunOptions {
  config: TargetConfig;
  /** The sink of a stream, made by the command layer at its SCHEMA: the engine of its kind, its ledger opened. */
  sinkOf(schema: StreamSchema): Promise<StreamSink<object>>;
}

/** Why a stream's ACTIVATE_VERSION and deleted records remove nothing. */
const KEPT_BY_KIND: Record<string, string> = {
  contacts: 'contacts are never deleted (the API cannot delete a contact)',
  events: 'events are never deleted (an event cannot be deleted)',
  records: 'records are never deleted (the API has no removal of records)',
  campaign: 'campaign members are never removed (the API cannot remove from a campaign)',
};

/**
 * `cnv target`: Singer messages from stdin into the account (docs/target.md). Each stream's
 * SCHEMA makes its lane (its kind's sink, its columns resolved before any request), its RECORDs
 * go through it, each STATE is printed once what was read before it is durable; ACTIVATE_VERSION
 * and records marked deleted make an audience's removals. Returns the exit code (0, 6, 9), or
 * throws what stopped the run once what it did is recorded and the covered states are printed.
 */
export async function runTarget(deps: TargetDeps, opts: TargetRunOptions): Promise<number> {
  return new TargetRun(deps, opts).go();
}

/** One run: the lanes of its streams, the states held, where it stands on stdin. */
class TargetRun {
  readonly lanes = new Map<string, StreamLane<object>>();
  readonly mirrors = new Map<string, LaneMirror>();
  /** Streams read and not sent (kind ignore), with their RECORDs read. */
  readonly ignored = new Map<string, string>();
  readonly records = new Map<string, number>();
  readonly replayed = new Map<string, number>();
  readonly stopper = new AbortController();
  readonly signal: AbortSignal;
  readonly gate: StateGate;
  readonly mode: RunMode;
  readonly started: number;
  report: TargetReport | undefined;
  statesRead = 0;
  private line = 0;
  private readonly said = new Set<string>();

  constructor(
    readonly deps: TargetDeps,
    readonly opts: TargetRunOptions,
  ) {
    this.signal = AbortSignal.any([deps.signal, this.stopper.signal]);
    this.mode = opts.config.plan ? 'plan' : 'send';
    this.gate = new StateGate(deps.stdout, () => this.lanes.values());
    this.started = deps.clock.now();
  }

  async go(): Promise<number> {
    const path = this.opts.config.reportPath;
    if (path) this.report = await TargetReport.open(path, (t) => this.deps.notices.redact(t), this.signal);
    let failure: unknown;
    try {
      await this.read();
    } catch (err) {
      failure = err;
      this.stopper.abort(new LaneStopped('the run stopped'));
    }
    const end = await windDown(this);
    failure ??= end.stoppedBy ?? (this.deps.signal.aborted ? this.deps.signal.reason : undefined);
    if (failure !== undefined) throw failure;
    return end.exitCode;
  }

  private async read(): Promise<void> {
    const lines = createInterface({ input: this.deps.stdin, crlfDelay: Infinity });
    const stop = () => lines.close();
    this.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const text of lines) {
        if (this.signal.aborted) break;
        const message = readMessage(text, ++this.line);
        if (message) await this.handle(message);
      }
    } finally {
      this.signal.removeEventListener('abort', stop);
      lines.close();
    }
  }

  private async handle(message: SingerMessage): Promise<void> {
    switch (message.type) {
      case 'SCHEMA':
        return this.schema(message);
      case 'RECORD':
        return this.record(message);
      case 'STATE':
        return this.state(message.value);
      case 'ACTIVATE_VERSION':
        return this.activate(message.stream, message.version);
      case 'BATCH':
        throw this.refused(
          `a BATCH message of stream "${message.stream}" (files of records): not read`,
          'turn batch_config off in the tap: the target reads RECORD messages',
        );
      default:
        this.once(
          `type:${message.name}`,
          `stdin line ${this.line}: a message of type ${JSON.stringify(message.name)} is not a Singer message the target knows: ignored`,
        );
    }
  }

  private refused(message: string, hint: string): UsageError {
    return new UsageError(`stdin line ${this.line}: ${message}`, hint, 'invalid_message');
  }

  /** A warning (or, `note`, a note of what is expected) once per topic a run. */
  private once(topic: string, warning: string, note = false): void {
    if (this.said.has(topic)) return;
    this.said.add(topic);
    if (note) this.deps.notices.info(`note: ${warning}`);
    else this.deps.notices.warn(warning);
  }

  private async schema(message: Extract<SingerMessage, { type: 'SCHEMA' }>): Promise<void> {
    const { stream } = message;
    const lane = this.lanes.get(stream);
    if (lane) return this.schemaAgain(lane, message);
    if (this.ignored.has(stream)) return;
    const config = streamConfig(this.opts.config, stream);
    if (!config)
      throw this.refused(
        `stream "${stream}" is not in the config's streams, and its name has no default kind`,
        'add it to streams with its kind (contacts, events, audience, campaign, records), or kind ignore; docs/target.md "Streams"',
      );
    if (config.kind === 'ignore') {
      this.ignored.set(stream, 'ignore');
      const why = ignoredByDefault(config);
      if (why) this.deps.notices.warn(why);
      return;
    }
    const keyProperties = config.key_properties ?? message.keyProperties;
    const missing = keyProperties.find((p) => !message.properties.includes(p));
    if (missing !== undefined)
      throw this.refused(
        `stream "${stream}": key property ${JSON.stringify(missing)} is not among its SCHEMA's properties`,
        'name properties the SCHEMA has in key_properties',
      );
    // A stream's records may name what a stream before it makes (an event, its contact): those are sent first.
    for (const earlier of this.lanes.values()) await earlier.settle();
    const schema: StreamSchema = {
      stream,
      properties: message.properties,
      keyProperties,
      keyOf: recordKeyReader(keyProperties),
      config,
      mode: this.mode,
      change: this.mode === 'plan' ? (line) => void this.report?.write(line) : undefined,
    };
    await this.open(schema);
  }

  /** A stream's lane: its sink made, its columns resolved (a property naming nothing: exit 2, nothing sent), kept rows queued first. */
  private async open(schema: StreamSchema): Promise<void> {
    const sink = await this.opts.sinkOf(schema);
    let columns: FileColumns;
    try {
      columns = await FileColumns.open(
        sink.columns,
        sink.columnFlags,
        `the SCHEMA of stream "${schema.stream}"`,
        this.signal,
      );
      await columns.start(schema.properties, [], this.line);
    } catch (err) {
      await sink.ledger.close();
      await sink.close?.();
      throw err instanceof UsageError ? propertyError(err, schema.stream) : err;
    }
    showColumns(this.deps.notices, `properties of stream ${schema.stream} for ${sink.endpoint}`, columns.entries());
    const lane = new StreamLane(schema, sink, columns, {
      signal: this.signal,
      notices: this.deps.notices,
      mode: this.mode,
      report: this.report,
      progressed: () => this.gate.check(),
      stop: () => this.stopper.abort(new LaneStopped(`stream ${schema.stream} stopped`)),
    });
    this.lanes.set(schema.stream, lane);
    if (sink.removals) this.mirrors.set(schema.stream, new LaneMirror(lane, this.deps.notices, this.mode));
    this.replayed.set(schema.stream, await lane.replayKept());
  }

  /** A SCHEMA again (a field created during the tap's run): new properties resolved as the first were. */
  private async schemaAgain(
    lane: StreamLane<object>,
    message: Extract<SingerMessage, { type: 'SCHEMA' }>,
  ): Promise<void> {
    const keys = lane.schema.config.key_properties ?? message.keyProperties;
    if (keys.join('\u0000') !== lane.schema.keyProperties.join('\u0000'))
      throw this.refused(
        `stream "${message.stream}": its key_properties changed during the run`,
        'a stream keeps its key; run again with the new one',
      );
    const fresh = message.properties.filter((p) => !lane.schema.properties.includes(p));
    if (fresh.length === 0) return;
    const row: InputRow = { line: this.line, values: Object.fromEntries(fresh.map((p) => [p, null])) };
    const entries = await lane.columns.more([row]);
    const unknown = lane.columns.resolved().filter((c) => fresh.includes(c.column) && c.target.kind === 'unknown');
    if (unknown.length > 0)
      throw this.refused(
        `the SCHEMA of stream "${message.stream}" adds ${unknown.map((c) => JSON.stringify(c.column)).join(', ')}, which names nothing ${lane.sink.endpoint} takes`,
        PROPERTY_HINT(message.stream),
      );
    lane.schema.properties = [...lane.schema.properties, ...fresh];
    showColumns(this.deps.notices, `new properties of stream ${message.stream}`, entries);
  }

  private async record(message: Extract<SingerMessage, { type: 'RECORD' }>): Promise<void> {
    const { stream, record, version } = message;
    this.records.set(stream, (this.records.get(stream) ?? 0) + 1);
    if (this.ignored.has(stream)) return;
    const lane = this.lanes.get(stream);
    if (!lane)
      throw this.refused(
        `a RECORD of stream "${stream}" before its SCHEMA`,
        "a tap sends a stream's SCHEMA before its records",
      );
    const mirror = this.mirrors.get(stream);
    if (mirror && version !== undefined) await mirror.version(version);
    const deletedAt = record._sdc_deleted_at;
    if (deletedAt !== undefined && deletedAt !== null && deletedAt !== '') return this.deleted(lane, record, mirror);
    const key = await lane.record(record, this.line);
    mirror?.see(key, version);
  }

  /** A record marked deleted (`_sdc_deleted_at`): an audience member's removal at the next state; any other kind keeps it. */
  private async deleted(
    lane: StreamLane<object>,
    record: Record<string, unknown>,
    mirror: LaneMirror | undefined,
  ): Promise<void> {
    const key = lane.keyOf({ line: this.line, values: record });
    if (mirror && key !== undefined) mirror.markDeleted(key);
    const why = mirror
      ? key === undefined
        ? 'it has no key, so no member is known for it'
        : 'its membership is removed at the next state'
      : `not sent: ${KEPT_BY_KIND[lane.sink.kind] ?? 'nothing is deleted'}`;
    await lane.decided(record, this.line, key, {
      status: 'unchanged',
      message: `marked deleted in the source (_sdc_deleted_at): ${why}`,
    });
  }

  private async state(value: string | undefined): Promise<void> {
    this.statesRead++;
    // An empty state is never printed (Meltano would save it in place of the last one).
    if (value === undefined) return;
    for (const mirror of this.mirrors.values()) await mirror.deletions();
    for (const lane of this.lanes.values()) lane.flush();
    if (this.mode === 'send') this.gate.add(value);
  }

  private async activate(stream: string, version: number): Promise<void> {
    if (this.ignored.has(stream)) return;
    const lane = this.lanes.get(stream);
    const mirror = this.mirrors.get(stream);
    if (!lane)
      return this.once(
        `activate:${stream}`,
        `stdin line ${this.line}: ACTIVATE_VERSION of stream "${stream}" before its SCHEMA: ignored`,
      );
    if (!mirror)
      return this.once(
        `activate:${stream}`,
        `stream ${stream}: ACTIVATE_VERSION: ${KEPT_BY_KIND[lane.sink.kind] ?? 'nothing is removed'}; what the pass left out stays`,
        true,
      );
    await mirror.deletions();
    await mirror.activate(version);
  }
}

const PROPERTY_HINT = (stream: string) =>
  `map it in the stream's config (streams.${stream}.map: {"PROPERTY": "fields.KEY"}), or leave it out ({"PROPERTY": "-"}); docs/target.md "Columns"`;

/** A column refusal of the file run's words, said of the stream's properties, with the config's way out. */
function propertyError(err: UsageError, stream: string): UsageError {
  if (err.code !== 'unknown_column' && err.code !== 'invalid_input') return err;
  const message = err.message
    .replaceAll('--map', 'map')
    .replace(/\bcolumns?\b/g, (word) => (word === 'column' ? 'property' : 'properties'));
  return new UsageError(message, PROPERTY_HINT(stream), err.code);
}
