import { z } from 'zod';
import type { Endpoint } from './endpoint.js';

export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

const paginationSchema = z.object({ nextCursor: z.string().nullable() });

function makeEnvelope<T extends z.ZodType>(data: T, paginated: boolean) {
  return z.looseObject({
    data,
    pagination: paginated ? paginationSchema : paginationSchema.optional(),
  });
}

// One envelope per data schema: zod compiles an object schema's checks on its first use, and
// a new envelope per request paid that again on every page of an export (~8 ms a page).
const envelopes = [new WeakMap<z.ZodType, z.ZodType>(), new WeakMap<z.ZodType, z.ZodType>()];

/** `{ data, pagination? }`, with unknown members tolerated. */
export function envelopeSchema<T extends z.ZodType>(data: T, paginated: boolean): ReturnType<typeof makeEnvelope<T>> {
  const cache = envelopes[paginated ? 1 : 0];
  let schema = cache.get(data);
  if (!schema) cache.set(data, (schema = makeEnvelope(data, paginated)));
  return schema as ReturnType<typeof makeEnvelope<T>>;
}

const rowsDataSchemas = new Map<string, z.ZodType>();

/** `data` of a streamed page, once its rows were taken out: an object with an array `member`. */
export function rowsData(member: string): z.ZodType {
  let schema = rowsDataSchemas.get(member);
  if (!schema) rowsDataSchemas.set(member, (schema = z.looseObject({ [member]: z.array(z.unknown()) })));
  return schema;
}

type JsonAnswer = Exclude<Endpoint['answer'], { row: unknown }>;

const answerSchemas = new WeakMap<JsonAnswer, z.ZodType>();

/**
 * The schema of `data` in a success answer of an endpoint's row: `{ <member>: schema }`, or the
 * schema itself for a row without a member. Made once per row (and so one envelope per row).
 */
export function answerData(answer: JsonAnswer): z.ZodType {
  let schema = answerSchemas.get(answer);
  if (!schema)
    answerSchemas.set(
      answer,
      (schema = answer.member === undefined ? answer.schema() : z.looseObject({ [answer.member]: answer.schema() })),
    );
  return schema;
}

/** An object with the given member: the outline of the API's envelope. */
export function isEnvelope(json: unknown, member: string): boolean {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && member in json;
}

/** A short, readable list of what did not match, e.g. `data.cnvContactId: expected string`. */
export function describeIssues(error: z.ZodError, max = 3, prefix?: string): string {
  const parts = error.issues.slice(0, max).map((issue) => {
    const segments = prefix === undefined ? issue.path : [prefix, ...issue.path];
    const path = segments.length ? segments.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join('; ');
}
