import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EmulatorError } from './errors.js';

// Per-process secret: cursors are opaque, tamper-evident and valid only in this process.
const SECRET = randomBytes(32);
const MAC_BYTES = 16;

function mac(data: string): Buffer {
  return createHmac('sha256', SECRET).update(data).digest().subarray(0, MAC_BYTES);
}

function invalid(): EmulatorError {
  return new EmulatorError(400, 'invalid_cursor', 'Cursor is invalid or malformed');
}

/**
 * Encodes a JSON-serialisable payload as an opaque cursor:
 * base64url(JSON) + '.' + base64url(truncated HMAC-SHA256).
 * `kind` (e.g. 'export-contacts') binds the cursor to one endpoint.
 */
export function encodeCursor(payload: unknown, kind = ''): string {
  const body = Buffer.from(JSON.stringify({ k: kind, p: payload }), 'utf8').toString('base64url');
  return `${body}.${mac(body).toString('base64url')}`;
}

/**
 * Verifies and decodes a cursor made by encodeCursor with the same `kind`.
 * Throws EmulatorError(400, 'invalid_cursor') for garbage, tampering or another kind.
 */
export function decodeCursor<T = unknown>(cursor: string, kind = ''): T {
  if (typeof cursor !== 'string') throw invalid();
  const dot = cursor.indexOf('.');
  if (dot <= 0 || dot !== cursor.lastIndexOf('.')) throw invalid();
  const body = cursor.slice(0, dot);
  // Compared as text: base64url decoding ignores the unused low bits of the last character,
  // so comparing decoded bytes would accept a signature with that character changed.
  const sig = Buffer.from(cursor.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(body).toString('base64url'), 'utf8');
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
