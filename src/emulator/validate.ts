import { invalidRequest } from './errors.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Pragmatic address check: local@domain.tld, no spaces, at most 254 characters.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date-time with an explicit zone (a zone-less time would be ambiguous).
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

export function isValidEmail(s: string): boolean {
  return s.length <= 254 && EMAIL_RE.test(s);
}

/** A real calendar date written as YYYY-MM-DD. */
export function isIsoDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** An ISO 8601 date-time with a zone, e.g. 2025-03-01T12:00:00.000Z. */
export function isIsoDateTime(s: string): boolean {
  return DATETIME_RE.test(s) && Number.isFinite(Date.parse(s)) && isIsoDate(s.slice(0, 10));
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string body value; undefined when absent or null; 400 invalid_request for another type. */
export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidRequest(`${key} must be a string`);
  return v;
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
