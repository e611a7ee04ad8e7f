import type { z } from 'zod';
import { showValue } from '../input/input-rows.js';
import { setOwn } from '../lib/own-key.js';
import type { Prepared } from './file-run.js';

/** Blank text and null count as absent; text is trimmed. For z.preprocess on row values. */
export function blank(value: unknown): unknown {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  return typeof value === 'string' ? value.trim() : value;
}

/**
 * Checks a row's body with the endpoint's zod schema. The first issue becomes the report's
 * error: `codes[key]` for the key it concerns (default invalid_request), `missing_identifier`
 * for a rule about the whole row (a missing identifier). Undefined members are dropped from the payload.
 */
export function checkRow<S extends z.ZodType<Record<string, unknown>>>(
  schema: S,
  body: Record<string, unknown>,
  identifier: string,
  codes: Record<string, string>,
): Prepared<z.output<S>> & { done?: undefined } {
  const parsed = schema.safeParse(body);
  if (parsed.success) {
    const data = parsed.data;
    const payload: Record<string, unknown> = {};
    for (const key in data) if (data[key] !== undefined) setOwn(payload, key, data[key]);
    return { identifier, payload: payload as z.output<S> };
  }
  const issue = parsed.error.issues[0];
  const key = issue.path[0];
  if (typeof key !== 'string') return { identifier, invalid: { error: 'missing_identifier', message: issue.message } };
  const shown = body[key] === undefined ? 'nothing' : showValue(body[key]);
  return {
    identifier,
    invalid: { error: codes[key] ?? 'invalid_request', message: `${key}: ${issue.message}, got ${shown}` },
  };
}

/** The columns a CSV must offer one of, unless a flag default (`--set`) already gives every row one. */
export function identifierColumns(
  defaults: Record<string, unknown>,
  columns: readonly string[],
): readonly string[] | undefined {
  return columns.some((c) => blank(defaults[c]) !== undefined) ? undefined : columns;
}
