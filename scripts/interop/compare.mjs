// What "the tables equal cnv's own export" means, value by value: rows matched by key, every
// property compared (absent = null), numbers by their exact decimal value, date-times by instant
// (PostgreSQL gives `timestamp` columns back without a zone: UTC), objects member by member.
import { isLosslessNumber, parse } from 'lossless-json';

/**
 * Parses JSON keeping every digit of every number: JSON.parse's result when printing it gives the
 * text back (each number one a double holds, written as JavaScript writes it: most lines, and 50
 * times faster), else lossless-json's, numbers as LosslessNumber.
 */
export function parseExact(text) {
  try {
    const fast = JSON.parse(text);
    if (JSON.stringify(fast) === text) return fast;
  } catch {
    // lossless-json says what is wrong with it
  }
  return parse(text);
}

/** The exact decimal value of a number's text: sign, digits without leading/trailing zeros, exponent. */
export function canonicalNumber(text) {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(String(text));
  if (!m) return `?${text}`;
  const digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  if (!digits) return '0';
  let exp = Number(m[4] ?? 0) - (m[3] ?? '').length;
  const trimmed = digits.replace(/0+$/, '');
  exp += digits.length - trimmed.length;
  return `${m[1]}${trimmed}e${exp}`;
}

const DATE_TIME = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d(?::?\d\d)?)?$/i;

/** A date-time's instant to the microsecond (no zone: UTC), or undefined when `s` is not one. */
function instant(s) {
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4] && m[4].toUpperCase() !== 'Z' ? m[4] : 'Z'}`);
  if (Number.isNaN(ms)) return undefined;
  return `${ms}.${(m[3] ?? '').padEnd(6, '0').slice(0, 6)}`;
}

/** A value in one comparable form. */
export function canonical(v) {
  if (v === undefined || v === null) return null;
  if (isLosslessNumber(v)) return { n: canonicalNumber(v.value) };
  if (typeof v === 'number') return { n: canonicalNumber(String(v)) };
  if (typeof v === 'string') {
    const t = instant(v);
    return t === undefined ? v : { t };
  }
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== null && v[k] !== undefined) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

/** Rows keyed by `key` (the last row of a key wins, as an upserting target holds them); columns starting with `_sdc_` dropped. */
export function byKey(rows, key) {
  const map = new Map();
  for (const row of rows) {
    const clean = {};
    for (const [k, v] of Object.entries(row)) if (!k.startsWith('_sdc_')) clean[k] = v;
    map.set(String(clean[key]), clean);
  }
  return map;
}

/**
 * Compares `actual` (what a target holds) with `expected` (cnv's export), both Maps by key.
 * Resolves to a list of differences (at most `max`), each one line; empty when equal.
 */
export function diffRows(expected, actual, max = 8) {
  const out = [];
  const note = (s) => out.length < max && out.push(s);
  for (const [key, exp] of expected) {
    const act = actual.get(key);
    if (!act) {
      note(`${key}: missing`);
      continue;
    }
    for (const prop of new Set([...Object.keys(exp), ...Object.keys(act)])) {
      const a = JSON.stringify(canonical(act[prop]));
      const e = JSON.stringify(canonical(exp[prop]));
      if (a !== e) note(`${key}.${prop}: expected ${e}, got ${a}`);
    }
  }
  for (const key of actual.keys()) if (!expected.has(key)) note(`${key}: not in the account (an extra row)`);
  const total = out.length;
  if (total >= max) out.push('...');
  return out;
}

/**
 * cnv's contacts export row (`--fields-by key`) as the tap's record: the field values spread as
 * properties named by key (`field_<key>` when a member of the row has that name), the rest as is.
 */
export function contactAsRecord(row) {
  const out = {};
  for (const [k, v] of Object.entries(row)) if (k !== 'fields') out[k] = v;
  for (const [key, v] of Object.entries(row.fields ?? {}))
    out[key in out || key === 'unresolvedFields' ? `field_${key}` : key] = v;
  return out;
}
