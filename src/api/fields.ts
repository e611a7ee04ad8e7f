import { z } from 'zod';
import type { HttpClient } from '../http/client.js';

/** Object types Create field accepts. */
export const FIELD_OBJECT_TYPES = ['CONTACT', 'COMPANY', 'OPPORTUNITY', 'CAMPAIGN_MEMBER'] as const;
/** Object types a relationship side (and a field list filter) may name. */
export const RELATIONSHIP_OBJECT_TYPES = [...FIELD_OBJECT_TYPES, 'CAMPAIGN', 'CUSTOM_OBJECT'] as const;
export const DATA_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DATE', 'DATETIME'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** A field definition as GET /v2/fields lists it (the spec does not show the item; extra members kept). */
export const fieldSchema = z.looseObject({
  key: z.string(),
  label: z.string(),
  objectType: z.string(),
  dataType: z.string(),
  readOnly: z.boolean().optional(),
  customObjectId: z.string().optional(),
});
export type FieldDefinition = z.output<typeof fieldSchema>;

const referenceSchema = z.looseObject({ key: z.string(), objectType: z.string(), customObjectId: z.string().optional() });
const relationshipResultSchema = z.looseObject({ sourceField: referenceSchema, relatedFields: z.array(referenceSchema) });
export type RelationshipResult = z.output<typeof relationshipResultSchema>;

export interface CreateFieldBody {
  label: string;
  objectType: string;
  dataType: string;
  key?: string;
}

/** One side of a relationship: object, key, label and (for CUSTOM_OBJECT only) the custom object id. */
export interface RelationshipSide {
  objectType: string;
  key: string;
  label: string;
  customObjectId?: string;
}

export interface ListFieldsQuery {
  objectType?: string;
  customObjectId?: string;
  limit?: number;
  cursor?: string;
}

/** POST /v2/fields. Not repeatable (a second call is a duplicate key), so retried only when it never left. */
export async function createField(http: HttpClient, body: CreateFieldBody, signal?: AbortSignal) {
  const res = await http.request({
    method: 'POST', path: '/v2/fields', body, data: z.looseObject({ field: fieldSchema }), idempotency: 'unsafe', signal,
  });
  return res.data.field;
}

/** GET /v2/fields: one page. */
export async function listFields(http: HttpClient, query: ListFieldsQuery, signal?: AbortSignal) {
  const res = await http.request({
    method: 'GET',
    path: '/v2/fields',
    query: { ...query },
    data: z.looseObject({ fields: z.array(fieldSchema) }),
    paginated: true,
    idempotency: 'safe',
    signal,
  });
  return { fields: res.data.fields, nextCursor: res.nextCursor ?? null };
}

/** Every page of GET /v2/fields from `query.cursor` (or the start), one page at a time. */
export async function* allFieldPages(http: HttpClient, query: ListFieldsQuery, signal?: AbortSignal) {
  let cursor = query.cursor;
  do {
    const page = await listFields(http, { ...query, cursor }, signal);
    yield page.fields;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/**
 * The query that lists a custom object's own field definitions. The spec does not show how
 * they are listed; this is the emulator's convention (docs/records.md), kept here alone so it
 * is one line to change.
 */
export function customObjectFieldsQuery(customObjectId: string): ListFieldsQuery {
  return { objectType: 'CUSTOM_OBJECT', customObjectId };
}

/** Every field definition of one custom object (all pages). */
export async function listCustomObjectFields(http: HttpClient, customObjectId: string, signal?: AbortSignal) {
  const fields: FieldDefinition[] = [];
  for await (const page of allFieldPages(http, { ...customObjectFieldsQuery(customObjectId), limit: 1000 }, signal)) fields.push(...page);
  return fields;
}

/** POST /v2/fields/relationships. Creates definitions, so retried only when it never left. */
export async function createRelationship(
  http: HttpClient,
  body: { source: RelationshipSide; target: RelationshipSide },
  signal?: AbortSignal,
) {
  const res = await http.request({
    method: 'POST', path: '/v2/fields/relationships', body, data: relationshipResultSchema, idempotency: 'unsafe', signal,
  });
  return res.data;
}
