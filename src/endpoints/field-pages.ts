import type { HttpClient } from '../http/client.js';
import { ENDPOINTS } from './endpoints.js';
import { isFieldOfCustomObject, type FieldDefinition, type ListFieldsQuery } from './fields.js';

/** Every page of GET /v2/fields from `query.cursor` (or the start), one page at a time: more than one call. */
export async function* allFieldPages(http: HttpClient, query: ListFieldsQuery, signal?: AbortSignal) {
  let cursor = query.cursor;
  do {
    const page = await http.call(ENDPOINTS.listFields, { query: { ...query, cursor }, signal });
    yield page.items;
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
    for (const f of page) if (isFieldOfCustomObject(f, customObjectId)) fields.push(f);
  }
  return fields;
}
