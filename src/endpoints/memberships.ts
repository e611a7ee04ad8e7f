import { z } from 'zod';
import { once } from '../lib/once.js';

// Static audiences and custom campaigns answer their add and batch add the same way.

/** `data` of an add of one contact to an audience or a campaign. */
export const addResult = once(() => z.looseObject({ added: z.boolean(), cnvContactId: z.string() }));
export type AddContactResult = z.output<ReturnType<typeof addResult>>;

/**
 * `data` of DELETE /v2/audiences/{audienceId}/contacts. cnvContactId may be null (or absent) when
 * no contact matched: the spec only says removing is a success then.
 */
export const removeResult = once(() =>
  z.looseObject({ removed: z.boolean(), cnvContactId: z.string().nullable().optional() }),
);

/** One entry of `data.results`: `{ added: true, cnvContactId }` or `{ added: false, error, message }` (other members kept). */
export type BatchItemResult =
  | { added: true; cnvContactId: string; [member: string]: unknown }
  | { added: false; error: string; message: string; [member: string]: unknown };

// A batch answer holds up to 1,000 results: each is checked with a plain predicate (the shape of
// BatchItemResult) rather than a schema union, which cost ~3 µs a result, in one check of the
// whole array.
const isBatchItem = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (r.added === true) return typeof r.cnvContactId === 'string';
  return r.added === false && typeof r.error === 'string' && (r.message === undefined || typeof r.message === 'string');
};

/** `data.results` of a batch add: one result per contact, in order; a failure without a message gets an empty one. */
export const batchAddResults = once(() =>
  z
    .custom<BatchItemResult[]>((v) => Array.isArray(v) && v.every(isBatchItem), {
      message: 'expected an array of { added: true, cnvContactId } or { added: false, error, message }',
    })
    .transform((results) => results.map((r) => (r.added || typeof r.message === 'string' ? r : { ...r, message: '' }))),
);
