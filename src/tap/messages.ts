import type { Writable } from 'node:stream';
import { stringifyJson } from '../lib/exact-number.js';
import { writeWithBackpressure } from '../output/write.js';
import type { JsonSchema } from './schemas.js';

/**
 * Singer messages on stdout, one JSON document a line, each written after the one before
 * (waiting for 'drain'), so a STATE never reaches the reader ahead of the records it covers.
 */
export class SingerOut {
  /** RECORD lines written (every line `bytes` and `text` write is one). */
  records = 0;

  constructor(private readonly stdout: Writable) {}

  /**
   * Lines made already (a page of RECORDs), copied: the pieces are pooled blocks the page
   * releases for the next page once this returns, while the stream may still hold what it
   * was given (a pipe on Node.js 24 writes later), which must not be overwritten.
   */
  async bytes(pieces: readonly Buffer[]): Promise<void> {
    if (pieces.length === 0) return;
    const bytes = Buffer.concat(pieces);
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) this.records++;
    await writeWithBackpressure(this.stdout, bytes);
  }

  /** RECORD lines made already (held rows). */
  async text(lines: string): Promise<void> {
    if (lines === '') return;
    for (let at = lines.indexOf('\n'); at >= 0; at = lines.indexOf('\n', at + 1)) this.records++;
    await writeWithBackpressure(this.stdout, lines);
  }

  schema(stream: string, schema: JsonSchema, keyProperties: string[], bookmarkProperties: string[]): Promise<void> {
    return this.message({
      type: 'SCHEMA',
      stream,
      schema,
      key_properties: keyProperties,
      bookmark_properties: bookmarkProperties,
    });
  }

  state(value: Record<string, unknown>): Promise<void> {
    return this.message({ type: 'STATE', value });
  }

  activateVersion(stream: string, version: number): Promise<void> {
    return this.message({ type: 'ACTIVATE_VERSION', stream, version });
  }

  private message(doc: Record<string, unknown>): Promise<void> {
    return writeWithBackpressure(this.stdout, stringifyJson(doc) + '\n');
  }
}

/** The start of a RECORD line of `stream`: the record follows, then recordEnd. */
export function recordStart(stream: string): string {
  return `{"type":"RECORD","stream":${JSON.stringify(stream)},"record":`;
}

/** The end of a RECORD line: the table version (when the stream has one) and the time of extraction. */
export function recordEnd(version: number | undefined, extractedAt: string): string {
  return `${version === undefined ? '' : `,"version":${version}`},"time_extracted":"${extractedAt}"}\n`;
}
