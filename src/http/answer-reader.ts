import type { z } from 'zod';
import { ResponseShapeError } from '../errors.js';
import { declaredLength, readCapped } from './body.js';
import { BODY_LIMITS, MAX_DEPTH, nestedDeeperThan } from '../limits/limits.js';
import { describeIssues, envelopeSchema, isEnvelope } from './envelope.js';
import { parseJson } from '../json/exact-json.js';
import { describeBody } from './foreign.js';
import { notTheApi, tooLarge } from './failures.js';
import type { Success } from './transport.js';

// A success answer read whole (every answer but an export page: src/http/page-reader.ts).

/** Its text, within the answer's size limit, with `mask` applied (the key echoed in it), or as it came. */
export async function readWhole(
  { body, headers, target }: Success,
  mask: (text: string) => string = (text) => text,
): Promise<string> {
  const limit = BODY_LIMITS.answerBytes;
  if ((declaredLength(headers) ?? 0) > limit) throw tooLarge(target, limit);
  const { text, complete } = await readCapped(body, limit);
  if (!complete) throw tooLarge(target, limit);
  return mask(text);
}

/** The API's envelope `{ data, pagination? }`, parsed with every digit kept and checked against the schema of its `data`. */
export function parseEnvelope(
  success: Success,
  text: string,
  data: z.ZodType,
  paginated: boolean,
): { data: unknown; nextCursor?: string | null } {
  const { target, status, headers } = success;
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (err) {
    // As for pages: a JSON object that broke is the API's answer damaged, anything else not the API's.
    if (text.trimStart().startsWith('{'))
      throw new ResponseShapeError(
        target.redact(`unexpected response from ${target.label}: the body is not JSON (${(err as Error).message})`),
      );
    throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(text, headers)}, not JSON`, status);
  }
  if (!isEnvelope(json, 'data'))
    throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(text, headers)}`, status);
  if (nestedDeeperThan(json, MAX_DEPTH))
    throw tooLarge(target, 0, `it nests arrays and objects deeper than ${MAX_DEPTH} levels`);
  const parsed = envelopeSchema(data, paginated).safeParse(json);
  if (!parsed.success)
    throw new ResponseShapeError(
      target.redact(`unexpected response from ${target.label}: ${describeIssues(parsed.error)}`),
    );
  return { data: parsed.data.data, nextCursor: parsed.data.pagination?.nextCursor };
}

/** Any JSON (`cnv api`), its shape unchecked; empty is null. An answer that is not JSON (an HTML page) is not the API's. */
export function parseAnyJson({ target, status, headers }: Success, text: string): unknown {
  let json: unknown;
  try {
    json = text.trim() === '' ? null : parseJson(text);
  } catch {
    throw notTheApi(target, `${target.label} answered ${status} with ${describeBody(text, headers)}, not JSON`, status);
  }
  if (nestedDeeperThan(json, MAX_DEPTH))
    throw tooLarge(target, 0, `it nests arrays and objects deeper than ${MAX_DEPTH} levels`);
  return json;
}
