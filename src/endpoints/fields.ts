import { z } from 'zod';
import type { HttpClient } from '../http/client.js';
import { ENDPOINTS, idempotencyOf } from './endpoints.js';

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

/** The query parameters the spec names for GET /v2/fields (and no other). */
export interface ListFieldsQuery {
  objectType?: string;
  limit?: number;
  cursor?: string;
}

/** POST /v2/fields. Not repeatable (a second call is a duplicate key), so retried only when it never left. */
export async function createField(http: HttpClient, body: CreateFieldBody, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.createField.method, path: ENDPOINTS.createField.path, body, data: z.looseObject({ field: fieldSchema }), idempotency: idempotencyOf(ENDPOINTS.createField), signal,
  });
  return res.data.field;
}

/** GET /v2/fields: one page. */
export async function listFields(http: HttpClient, query: ListFieldsQuery, signal?: AbortSignal) {
  const res = await http.request({
    method: ENDPOINTS.listFields.method,
    path: ENDPOINTS.listFields.path,
    query: { ...query },
    data: z.looseObject({ fields: z.array(fieldSchema) }),
    paginated: true,
    idempotency: idempotencyOf(ENDPOINTS.listFields),
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
 * Every field definition of one custom object (all pages). The spec names only `objectType`,
 * `limit` and `cursor` for GET /v2/fields, so this lists every CUSTOM_OBJECT field and keeps,
 * client-side, those of this custom object. An item without `customObjectId` is kept too (the
 * spec shows no item shape; keys are unique in the account, so it cannot shadow another).
 */
export async function listCustomObjectFields(http: HttpClient, customObjectId: string, signal?: AbortSignal) {
  const fields: FieldDefinition[] = [];
  for await (const page of allFieldPages(http, { objectType: 'CUSTOM_OBJECT', limit: 1000 }, signal)) {
    fields.push(...page.filter((f) => isFieldOfCustomObject(f, customObjectId)));
  }
  return fields;
}

/** True when a listed definition belongs to this custom object (or does not say which it belongs to). */
export function isFieldOfCustomObject(field: FieldDefinition, customObjectId: string): boolean {
  if (field.objectType.toUpperCase() !== 'CUSTOM_OBJECT') return false;
  return field.customObjectId === undefined || field.customObjectId.toLowerCase() === customObjectId.toLowerCase();
}

/** POST /v2/fields/relationships. Creates definitions, so retried only when it never left. */
export async function createRelationship(
  http: HttpClient,
  body: { source: RelationshipSide; target: RelationshipSide },
  signal?: AbortSignal,
) {
  const res = await http.request({
    method: ENDPOINTS.createRelationship.method, path: ENDPOINTS.createRelationship.path, body, data: relationshipResultSchema, idempotency: idempotencyOf(ENDPOINTS.createRelationship), signal,
  });
  return res.data;
}
