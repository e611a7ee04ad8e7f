// Date checks shared by the CLI (value coercion) and the emulator (value validation).

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 date-time with an explicit zone (a zone-less time would be ambiguous).
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

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
