import type { IncomingMessage, ServerResponse } from 'node:http';
import { nestedDeeperThan } from '../limits/limits.js';
import { parseJson } from '../json/exact-json.js';
import { stringifyJson } from '../lib/exact-number.js';
import { EmulatorError, errorBody } from './error-answer.js';
import type { RouteResult } from './router.js';

// Large enough for any legal batch (1,000 contacts / 200 records), small enough to be safe.
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * Deepest nesting a request body may have. Deeper data would overflow the stack where it is
 * stored (a 500 after the contact was made) and could not be read back by a client (an export
 * row adds 3 levels; cnv reads answers up to 256): refused before any route runs.
 */
export const MAX_BODY_DEPTH = 200;

/** Reads the whole request body; `tooLarge` is set instead of buffering past the limit. */
export async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(buf);
  }
  return { text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge };
}

/** Parses a JSON object body: `{}` when empty, 400 invalid_request when malformed or not an object. */
export function parseJsonObject(raw: { text: string; tooLarge: boolean }): Record<string, unknown> {
  if (raw.tooLarge) throw new EmulatorError(400, 'invalid_request', 'Request body is too large');
  if (raw.text.trim() === '') return {};
  let value: unknown;
  try {
    // Numbers keep every digit (a field holding 9007199254740993 is stored and exported as sent).
    value = parseJson(raw.text);
  } catch {
    throw new EmulatorError(400, 'invalid_request', 'Request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EmulatorError(400, 'invalid_request', 'Request body must be a JSON object');
  }
  if (nestedDeeperThan(value, MAX_BODY_DEPTH))
    throw new EmulatorError(
      400,
      'invalid_request',
      `Request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
    );
  return value as Record<string, unknown>;
}

/**
 * The spec: requests with a body send `Content-Type: application/json`. A non-empty body with
 * another (or no) media type is 400 invalid_request (the spec's code for a malformed request;
 * a 415 is not in its status table). Parameters such as `charset=utf-8` are accepted.
 */
export function assertJsonContentType(contentType: string | undefined, raw: { text: string; tooLarge: boolean }): void {
  if (raw.text === '' && !raw.tooLarge) return;
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new EmulatorError(
      400,
      'invalid_request',
      `A request body needs Content-Type: application/json (got ${contentType ? `"${contentType}"` : 'none'})`,
    );
  }
}

/** Sends a JSON answer; `cut`: announces its whole length, sends half of it, then drops the socket. */
export function sendJson(res: ServerResponse, result: RouteResult, cut = false): number {
  const status = result.status ?? 200;
  // Encoded once: Buffer.byteLength and then end(string) would each go through the text.
  const payload = Buffer.from(stringifyJson(result.body ?? null), 'utf8');
  res.writeHead(status, {
    ...result.headers,
    'content-type': 'application/json',
    'content-length': payload.length,
  });
  if (cut) {
    res.write(payload.subarray(0, payload.length >> 1), () => res.socket?.destroy());
    return status;
  }
  res.end(payload);
  return status;
}

/** Turns anything thrown by a handler into a JSON error answer. */
export function errorResult(err: unknown, log: (line: string) => void): RouteResult {
  if (err instanceof EmulatorError) {
    return { status: err.status, body: errorBody(err.code, err.message), headers: err.headers };
  }
  log(`emulator: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return { status: 500, body: errorBody('internal_error', 'Internal server error') };
}

/** Closes the connection without answering (a "dropped" request). */
export function dropConnection(req: IncomingMessage, res: ServerResponse): void {
  res.destroy();
  req.socket.destroy();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
