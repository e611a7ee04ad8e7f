import { EXPORT_MEMBERS, type ExportKind } from '../endpoints/exports.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import { renamedKey } from './property-names.js';

// The JSON Schemas of the streams (Singer SCHEMA messages, the catalog's `schema`). Contacts
// carry one property per CONTACT field, named by its key (stable across label renames), so a
// warehouse target makes typed columns of them.

/** A JSON Schema object (what Singer messages carry). */
export type JsonSchema = Record<string, unknown>;

const nullable = (type: string, more: JsonSchema = {}): JsonSchema => ({ type: [type, 'null'], ...more });

/** The properties of an export's members (src/endpoints/exports.ts EXPORT_MEMBERS), in their order. */
function memberProperties(kind: ExportKind): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const m of EXPORT_MEMBERS[kind]) {
    properties[m.name] = {
      type: m.nullable ? [m.type, 'null'] : [m.type],
      ...(m.format ? { format: m.format } : {}),
      ...(m.type === 'array' ? { items: {} } : {}),
    };
  }
  return properties;
}

/** The members of an exported contact other than its fields (api-spec: Exported contact). */
const CONTACT_MEMBERS = memberProperties('contacts');

/** What a row's field members that no definition names go in (by their label): never dropped. */
export const UNRESOLVED = 'unresolvedFields';

/**
 * The property of a field: its key, or `field_<key>` when a contact member (or `unresolvedFields`)
 * has that name, a target reserves it (`_sdc_*`), or it starts with `field_` itself, so that no
 * renamed key lands on another field's name whatever keys the account has (property-names.ts).
 */
export function fieldProperty(key: string): string {
  return Object.hasOwn(CONTACT_MEMBERS, key) || key === UNRESOLVED || renamedKey(key) ? `field_${key}` : key;
}

/** The schema of one field's values by its dataType; an unknown type takes any JSON value. */
function fieldValueSchema(def: Pick<FieldDefinition, 'dataType' | 'label'>): JsonSchema {
  const title = { title: def.label };
  switch (def.dataType) {
    case 'STRING':
      return nullable('string', title);
    case 'NUMBER':
      return nullable('number', title);
    case 'BOOLEAN':
      return nullable('boolean', title);
    case 'DATE':
      return nullable('string', { format: 'date', ...title });
    case 'DATETIME':
      return nullable('string', { format: 'date-time', ...title });
    default:
      return { ...title };
  }
}

/** The contacts stream's schema for these CONTACT field definitions. */
export function contactsSchema(defs: readonly FieldDefinition[]): JsonSchema {
  // No prototype: a field keyed "__proto__" is a property like any other.
  const properties: Record<string, JsonSchema> = Object.assign(Object.create(null), CONTACT_MEMBERS);
  for (const def of defs) properties[fieldProperty(def.key)] = fieldValueSchema(def);
  properties[UNRESOLVED] = nullable('object', {
    description:
      'field members (by label) that no one field definition names: a label two fields share, ' +
      'or a field made since the run read the definitions',
  });
  return { type: ['object'], properties };
}

/** The custom_events stream's schema (api-spec: Custom event). */
export function customEventsSchema(): JsonSchema {
  return { type: ['object'], properties: memberProperties('custom-events') };
}

/** The email_events stream's schema: the nine types in one stream (api-spec: Email event). */
export function emailEventsSchema(): JsonSchema {
  return { type: ['object'], properties: memberProperties('email-events') };
}
