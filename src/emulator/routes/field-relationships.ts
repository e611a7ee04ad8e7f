import { assertPermission } from '../auth.js';
import { assertCustomObjectsEnabled, requireCustomObject } from '../custom-object-access.js';
import { EmulatorError, invalidRequest } from '../error-answer.js';
import { FIELD_KEY_RE, assertKeyFree, readObjectType, requiredTrimmed } from '../field-definitions.js';
import { RELATIONSHIP_OBJECT_TYPES, type StoredField, type ObjectType } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import { isPlainObject } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** POST /v2/fields/relationships (field creation permission; custom-object edit for CUSTOM_OBJECT sides). */
export function relationshipRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.createRelationship, createRelationship, { permission: 'fields:create' });
}

interface Side {
  objectType: ObjectType;
  customObjectId?: string;
  key: string;
  label: string;
}

function readSide(body: Record<string, unknown>, name: 'source' | 'target'): Side {
  const raw = body[name];
  if (!isPlainObject(raw)) throw invalidRequest(`${name} is required (an object with objectType, key and label)`);
  if (raw.objectType === undefined || raw.objectType === null) throw invalidRequest(`${name}.objectType is required`);
  const objectType = readObjectType(raw.objectType, RELATIONSHIP_OBJECT_TYPES, `${name}.objectType`);
  const key = requiredTrimmed(raw, 'key', `${name}.`);
  if (!FIELD_KEY_RE.test(key)) throw invalidRequest(`${name}.key may hold only letters, digits and underscores`);
  const label = requiredTrimmed(raw, 'label', `${name}.`);
  const hasId = raw.customObjectId !== undefined && raw.customObjectId !== null;
  if (objectType === 'CUSTOM_OBJECT' && !hasId)
    throw invalidRequest(`${name}.customObjectId is required for CUSTOM_OBJECT`);
  if (objectType !== 'CUSTOM_OBJECT' && hasId) throw invalidRequest(`${name}.customObjectId is only for CUSTOM_OBJECT`);
  return { objectType, key, label, ...(hasId ? { customObjectId: raw.customObjectId as string } : {}) };
}

function createRelationship({ body, store, key: apiKey }: ApiContext): RouteResult {
  const source = readSide(body, 'source');
  const target = readSide(body, 'target');
  for (const side of [source, target]) {
    if (side.objectType !== 'CUSTOM_OBJECT') continue;
    assertCustomObjectsEnabled(store);
    assertPermission(apiKey, 'customObjects:edit');
    side.customObjectId = requireCustomObject(store, side.customObjectId).id;
  }
  if (source.key === target.key) throw new EmulatorError(400, 'invalid_field', 'source.key and target.key must differ');
  assertKeyFree(store, source.key);
  assertKeyFree(store, target.key);
  const now = store.clock.now();
  const define = (own: Side, other: Side, reverse: boolean): StoredField =>
    store.fields.add({
      key: own.key,
      label: own.label,
      objectType: own.objectType,
      // A relationship value is the target's clientDedupKey (or email for contacts): a string.
      dataType: 'STRING',
      readOnly: false,
      ...(own.customObjectId ? { customObjectId: own.customObjectId } : {}),
      relationship: {
        targetObjectType: other.objectType,
        ...(other.customObjectId ? { targetCustomObjectId: other.customObjectId } : {}),
        pairedKey: other.key,
        reverse,
      },
      createdAt: now,
    });
  const sourceField = define(source, target, false);
  const reverseField = define(target, source, true);
  return { body: { data: { sourceField: reference(sourceField), relatedFields: [reference(reverseField)] } } };
}

function reference(def: StoredField): Record<string, unknown> {
  return {
    key: def.key,
    objectType: def.objectType,
    ...(def.customObjectId ? { customObjectId: def.customObjectId } : {}),
  };
}
