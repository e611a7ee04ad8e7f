import { requireCustomObject } from '../custom-object-access.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import {
  FIELD_KEY_RE,
  assertKeyFree,
  deriveFieldKey,
  fieldView,
  readDataType,
  readObjectType,
  requiredTrimmed,
} from '../field-definitions.js';
import { FIELD_OBJECT_TYPES, RELATIONSHIP_OBJECT_TYPES, type StoredField, type ObjectType } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import { queryParam } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/**
 * Default and maximum page size of GET /v2/fields (the spec shows neither: the emulator's choice;
 * out-of-range values are clamped).
 */
const FIELDS_PAGE = { default: 100, max: 1000 } as const;

/**
 * POST /v2/fields (gated; the spec ties the field creation permission to relationship fields
 * only, so a plain field needs none) and GET /v2/fields.
 */
export function fieldRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.createField, createField);
  serve(router, ENDPOINTS.listFields, listFields);
}

function createField({ body, store }: ApiContext): RouteResult {
  const label = requiredTrimmed(body, 'label');
  if (body.objectType === undefined || body.objectType === null) throw invalidRequest('objectType is required');
  const objectType = readObjectType(body.objectType, FIELD_OBJECT_TYPES);
  const dataType = readDataType(body.dataType);
  let key: string;
  if (body.key === undefined || body.key === null) {
    key = deriveFieldKey(label);
    if (key === '') throw invalidRequest('key cannot be derived from a label without letters or digits; send a key');
  } else {
    if (typeof body.key !== 'string' || !FIELD_KEY_RE.test(body.key.trim())) {
      throw invalidRequest('key may hold only letters, digits and underscores');
    }
    key = body.key.trim();
  }
  assertKeyFree(store, key);
  const def = store.fields.add({ key, label, objectType, dataType, readOnly: false, createdAt: store.clock.now() });
  return {
    body: { data: { field: { key: def.key, label: def.label, objectType: def.objectType, dataType: def.dataType } } },
  };
}

interface FieldsCursor {
  o: ObjectType | null;
  c: string | null;
  n: number;
}

function listFields({ query, store }: ApiContext): RouteResult {
  const rawType = queryParam(query, 'objectType');
  let objectType = rawType === undefined ? undefined : readObjectType(rawType, RELATIONSHIP_OBJECT_TYPES);
  let customObjectId = queryParam(query, 'customObjectId');
  if (customObjectId !== undefined) {
    objectType ??= 'CUSTOM_OBJECT';
    if (objectType !== 'CUSTOM_OBJECT') throw invalidRequest('customObjectId goes only with objectType CUSTOM_OBJECT');
    customObjectId = requireCustomObject(store, customObjectId).id;
  }
  const limit = readLimit(queryParam(query, 'limit'));
  let offset = 0;
  const cursor = queryParam(query, 'cursor');
  if (cursor !== undefined) {
    const p = decodeCursor<FieldsCursor>(cursor, 'fields', store.cursorSecret);
    // A cursor carries its filter; a query filter that disagrees with it is a misuse.
    if ((rawType !== undefined && p.o !== objectType) || (customObjectId !== undefined && p.c !== customObjectId)) {
      throw new EmulatorError(400, 'invalid_cursor', 'Cursor was made for another objectType or customObjectId');
    }
    objectType = p.o ?? undefined;
    customObjectId = p.c ?? undefined;
    offset = p.n;
  }
  const all: StoredField[] = store.fields.list(objectType, customObjectId);
  const page = all.slice(offset, offset + limit);
  const next = offset + page.length;
  const nextCursor =
    next < all.length
      ? encodeCursor(
          { o: objectType ?? null, c: customObjectId ?? null, n: next } satisfies FieldsCursor,
          'fields',
          store.cursorSecret,
        )
      : null;
  return { body: { data: { fields: page.map(fieldView) }, pagination: { nextCursor } } };
}

function readLimit(raw: string | undefined): number {
  if (raw === undefined) return FIELDS_PAGE.default;
  if (!/^-?\d+$/.test(raw)) throw invalidRequest('limit must be an integer');
  return Math.min(FIELDS_PAGE.max, Math.max(1, Number(raw)));
}
