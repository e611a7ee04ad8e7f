import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { EmulatorError } from './error-answer.js';

const MAC_BYTES = 16;

/**
 * The key cursors are signed with, derived from what makes the data (the seed and the bulk row
 * counts): an emulator restarted with the same options accepts the cursors of the previous
 * one, so a saved export cursor survives a restart; another seed's cursor is invalid_cursor.
 * Cursors are tamper-evident, not secret: anyone who knows the seed can make one.
 */
export function cursorSecretFor(dataSpec: string): Buffer {
  return createHash('sha256').update(`cnv-emulator cursor key v1|${dataSpec}`).digest();
}

const DEFAULT_SECRET = cursorSecretFor('seed=demo');

function mac(data: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(data).digest().subarray(0, MAC_BYTES);
}

function invalid(): EmulatorError {
  return new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
}

/**
 * Encodes a JSON-serialisable payload as an opaque cursor (signed with `secret`, the store's
 * `cursorSecret` in routes):
 * base64url(JSON) + '.' + base64url(truncated HMAC-SHA256).
 * `kind` (e.g. 'export-contacts') binds the cursor to one endpoint.
 */
export function encodeCursor(payload: unknown, kind = '', secret: Buffer = DEFAULT_SECRET): string {
  const body = Buffer.from(JSON.stringify({ k: kind, p: payload }), 'utf8').toString('base64url');
  return `${body}.${mac(body, secret).toString('base64url')}`;
}

/**
 * Verifies and decodes a cursor made by encodeCursor with the same `kind`.
 * Throws EmulatorError(400, 'invalid_cursor') for garbage, tampering or another kind.
 */
export function decodeCursor<T = unknown>(cursor: string, kind = '', secret: Buffer = DEFAULT_SECRET): T {
  if (typeof cursor !== 'string') throw invalid();
  const dot = cursor.indexOf('.');
  if (dot <= 0 || dot !== cursor.lastIndexOf('.')) throw invalid();
  const body = cursor.slice(0, dot);
  // Compared as text: base64url decoding ignores the unused low bits of the last character,
  // so comparing decoded bytes would accept a signature with that character changed.
  const sig = Buffer.from(cursor.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(body, secret).toString('base64url'), 'utf8');
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { k?: unknown }).k !== kind) throw invalid();
  return (parsed as { p: T }).p;
}
