import { RELATIONSHIP_OBJECT_TYPES, type RelationshipSide } from '../endpoints/fields.js';
import { uuidSchema } from '../endpoints/identifiers.js';
import { UsageError } from '../errors.js';

/** Letters (Unicode included), digits and underscores: the API's field key charset. */
export const FIELD_KEY_RE = /^[\p{L}\p{N}_]+$/u;

const UUID_TAIL = /:\s*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\s*$/i;

/**
 * Parses `OBJECT:key:label[:customObjectId]`. The object and the key never hold a colon, so
 * they end at the first and second colon; the rest is the label, colons included. For
 * CUSTOM_OBJECT the last colon-separated part is the custom object id; a standard object
 * whose spec ends in `:<uuid>` is refused (use --<side>-label for such a label).
 */
export function parseSideSpec(spec: string, flag: string): RelationshipSide {
  const first = spec.indexOf(':');
  const second = first < 0 ? -1 : spec.indexOf(':', first + 1);
  if (first < 0 || second < 0)
    throw new UsageError(`${flag}: expected OBJECT:key:label[:customObjectId], got "${spec}"`);
  const objectType = spec.slice(0, first);
  const key = spec.slice(first + 1, second);
  let label = spec.slice(second + 1);
  let customObjectId: string | undefined;
  if (objectType.trim().toUpperCase() === 'CUSTOM_OBJECT') {
    const last = label.lastIndexOf(':');
    if (last < 0)
      throw new UsageError(`${flag}: CUSTOM_OBJECT needs the custom object id: CUSTOM_OBJECT:key:label:<uuid>`);
    customObjectId = label.slice(last + 1);
    label = label.slice(0, last);
  } else if (UUID_TAIL.test(label)) {
    throw new UsageError(
      `${flag}: a custom object id is only for CUSTOM_OBJECT sides`,
      `to end a label with ":<uuid>", use the separate ${flag}-label flag`,
    );
  }
  return checkSide({ objectType, key, label, customObjectId }, flag);
}

/** Validates and normalises one side (trimmed key and label, canonical object type). */
export function checkSide(
  raw: { objectType?: string; key?: string; label?: string; customObjectId?: string },
  flag: string,
): RelationshipSide {
  const objectType = RELATIONSHIP_OBJECT_TYPES.find((t) => t === raw.objectType?.trim().toUpperCase());
  if (!objectType) {
    throw new UsageError(
      `${flag}: object type must be one of ${RELATIONSHIP_OBJECT_TYPES.join(', ')} (any case), got "${raw.objectType ?? ''}"`,
    );
  }
  const key = raw.key?.trim() ?? '';
  if (!FIELD_KEY_RE.test(key))
    throw new UsageError(`${flag}: the key may hold only letters, digits and underscores, got "${raw.key ?? ''}"`);
  const label = raw.label?.trim() ?? '';
  if (label === '') throw new UsageError(`${flag}: the label must not be empty`);
  const side: RelationshipSide = { objectType, key, label };
  const id = raw.customObjectId?.trim();
  if (objectType === 'CUSTOM_OBJECT') {
    if (!id) throw new UsageError(`${flag}: CUSTOM_OBJECT needs a custom object id`);
    if (!uuidSchema.safeParse(id).success)
      throw new UsageError(`${flag}: the custom object id must be a UUID, got "${id}"`);
    side.customObjectId = id;
  } else if (id) {
    throw new UsageError(`${flag}: a custom object id is only for CUSTOM_OBJECT sides`);
  }
  return side;
}
