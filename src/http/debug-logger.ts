import type { Writable } from 'node:stream';
import { escapeControl } from '../lib/terminal-text.js';
import type { RequestLogger } from './logger.js';

/** Characters of a body the debug log shows (request and response alike). */
const DEBUG_BODY_CHARS = 4096;
/** Bytes of a response body captured for it: more than is shown, as redaction shortens the text. */
const CAPTURE_BYTES = 2 * DEBUG_BODY_CHARS;
/**
 * Characters dropped from the end of a capture that stopped short of the body's end: a key cut
 * there is not whole, so the redactor cannot recognise it. Longer than any key.
 */
const CUT_HOLD_BACK = 1024;

/** Headers whose values are credentials, whatever they hold: never shown. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/**
 * The opening of a body as its reader takes it, and its size: chunks pass through unchanged
 * (`wrap`), the first few KiB are kept for the debug log.
 */
export class BodyCapture {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  bytes = 0;

  wrap<B extends AsyncIterable<unknown> & { destroy(): unknown }>(
    body: B,
  ): AsyncIterable<unknown> & { destroy(): unknown } {
    const push = (chunk: unknown) => this.push(chunk);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of body) {
          push(chunk);
          yield chunk;
        }
      },
      destroy: () => body.destroy(),
    };
  }

  snapshot(): { text: string; bytes: number; whole: boolean } {
    return { text: Buffer.concat(this.kept).toString('utf8'), bytes: this.bytes, whole: this.keptBytes === this.bytes };
  }

  private push(chunk: unknown): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    this.bytes += buf.length;
    if (this.keptBytes >= CAPTURE_BYTES) return;
    const part = buf.subarray(0, CAPTURE_BYTES - this.keptBytes);
    this.kept.push(part);
    this.keptBytes += part.length;
  }
}

/**
 * `--debug` / `CNV_DEBUG=api` (as gh's `GH_DEBUG=api`): each attempt in full on stderr, for a
 * support ticket answered from one paste: time, URL and host, request headers and body, status,
 * time taken and attempt number, response headers and body, retries. Bodies are cut at 4 KiB
 * with their full size noted; credential headers are masked, the key and URL credentials are
 * redacted everywhere (before the cut, and a capture's end that may hold part of a key is
 * dropped), and control characters are escaped.
 */
export function debugLogger(
  stderr: Writable,
  redact: (s: string) => string,
  now: () => Date = () => new Date(),
): RequestLogger {
  const write = (lines: string[]) => stderr.write(lines.map((line) => escapeControl(line)).join('\n') + '\n');
  const headerLines = (prefix: string, headers: Record<string, string | string[] | undefined>) =>
    Object.entries(headers).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value ?? '']).map(
        (v) => `${prefix} ${name}: ${SECRET_HEADERS.has(name.toLowerCase()) && !/_\*\*\*\*$/.test(v) ? '****' : v}`,
      ),
    );
  const bodyLines = (prefix: string, { text, bytes, whole }: { text: string; bytes: number; whole: boolean }) => {
    if (bytes === 0) return [];
    // Redacted before it is cut, so that a cut never falls inside a key still to be masked.
    let shown = redact(text);
    if (!whole) shown = shown.slice(0, Math.max(0, shown.length - CUT_HOLD_BACK));
    const cut = !whole || shown.length > DEBUG_BODY_CHARS;
    const lines = [
      prefix,
      ...shown
        .slice(0, DEBUG_BODY_CHARS)
        .split('\n')
        .map((l) => `${prefix} ${l}`),
    ];
    if (cut)
      lines.push(`${prefix} [body cut: ${bytes} bytes in all, at most the first ${DEBUG_BODY_CHARS / 1024} KiB shown]`);
    return lines;
  };
  return {
    wantsBodies: true,
    request: ({ method, path, attempt, url, headers, body }) => {
      const host = url ? safeHost(url) : undefined;
      const lines = [`* ${now().toISOString()} ${method} ${url ?? path} (attempt ${attempt})`, `> ${method} ${path}`];
      if (host) lines.push(`> host: ${host}`);
      lines.push(...headerLines('>', headers ?? {}));
      if (body !== undefined)
        lines.push(...bodyLines('>', { text: body, bytes: Buffer.byteLength(body), whole: true }));
      write(lines.map(redact));
    },
    response: ({ method, path, attempt, status, ms, headers, body }) => {
      const lines = [
        `< ${status} ${method} ${path} (attempt ${attempt}, ${Math.round(ms)} ms)`,
        ...headerLines('<', headers ?? {}),
      ];
      if (body) lines.push(...bodyLines('<', body));
      write(lines.map(redact));
    },
    retry: ({ method, path, attempt, delayMs, reason }) =>
      write([redact(`* retry ${method} ${path} after attempt ${attempt} (${reason}) in ${Math.round(delayMs)} ms`)]),
  };
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
