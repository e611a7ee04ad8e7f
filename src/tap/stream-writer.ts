import { stringifyJson } from '../lib/exact-number.js';
import { recordEnd, recordStart, type SingerOut } from './messages.js';
import type { JsonSchema } from './schemas.js';
import type { StreamOutput } from './stream-output.js';

type Json = Record<string, unknown>;

/**
 * The messages of one tap stream, written through its outputs (StreamOutput: the stream itself,
 * its alias, copies; none when a map removes it): a SCHEMA each, RECORD lines of each record
 * mapped and flattened, ACTIVATE_VERSION. A stream with one plain output lets its caller write
 * RECORDs from the rows' own text (`plain`).
 */
export class StreamWriter {
  private readonly written = new Map<string, string>();
  private readonly starts: string[];

  constructor(
    private readonly out: SingerOut,
    private readonly outputs: readonly StreamOutput[],
    private readonly extractedAt: string,
  ) {
    this.starts = outputs.map((o) => recordStart(o.name));
  }

  /** One output under the stream's own name, records as the tap makes them. */
  get plain(): boolean {
    return this.outputs.length === 1 && this.outputs[0].plain;
  }

  /** Whether records may hold properties a SCHEMA must announce first (flattening learns them). */
  get learns(): boolean {
    return this.outputs.some((o) => o.flattens);
  }

  /** RECORD lines made by the caller (a plain stream's held rows). */
  text(lines: string): Promise<void> {
    return this.out.text(lines);
  }

  /** Takes the stream's schema and writes each output's SCHEMA (again only when it changed). */
  async schema(schema: JsonSchema, keys: string[], bookmarks: string[]): Promise<void> {
    for (const output of this.outputs) output.use(schema, keys, bookmarks);
    await this.writeSchemas();
  }

  /** The RECORD lines of a record (one per output), `version` the table version they carry. */
  lines(record: Json, version?: number): string {
    const end = recordEnd(version, this.extractedAt);
    let text = '';
    for (let i = 0; i < this.outputs.length; i++)
      text += this.starts[i] + stringifyJson(this.outputs[i].shape(record)) + end;
    return text;
  }

  /** Whether a record would carry a property its output's SCHEMA lacks (it is then written by `writeHeld`). */
  holds(record: Json): boolean {
    return this.outputs.some((o) => o.flattens && o.isNew(o.shape(record)));
  }

  /** A record the page held back: the SCHEMAs it needs first, then its lines. */
  async writeHeld(record: Json, version?: number): Promise<void> {
    let grew = false;
    for (const o of this.outputs) grew = o.learn(o.shape(record)) || grew;
    if (grew) await this.writeSchemas();
    await this.out.text(this.lines(record, version));
  }

  async activateVersion(version: number): Promise<void> {
    for (const o of this.outputs) await this.out.activateVersion(o.name, version);
  }

  private async writeSchemas(): Promise<void> {
    for (const output of this.outputs) {
      const s = output.schema();
      const text = stringifyJson(s);
      if (this.written.get(s.stream) === text) continue;
      this.written.set(s.stream, text);
      await this.out.schema(s.stream, s.schema, s.keyProperties, s.bookmarkProperties);
    }
  }
}
