import { invalidRequest } from './error-answer.js';

export { isIsoDate, isIsoDateTime } from '../dates.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Pragmatic address check: local@domain.tld, no spaces, at most 254 characters.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

export function isValidEmail(s: string): boolean {
  return s.length <= 254 && EMAIL_RE.test(s);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A boolean body value; undefined when absent or null; 400 invalid_request for another type. */
export function optionalBoolean(body: Record<string, unknown>, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalidRequest(`${key} must be a boolean`);
  return v;
}

/** A JSON object body value; undefined when absent or null; 400 invalid_request otherwise. */
export function optionalObject(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw invalidRequest(`${key} must be a JSON object`);
  return v;
}

/** A non-empty query parameter, or undefined. */
export function queryParam(query: URLSearchParams, key: string): string | undefined {
  const v = query.get(key)?.trim();
  return v ? v : undefined;
}
