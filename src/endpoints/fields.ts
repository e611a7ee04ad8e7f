import { z } from 'zod';
import { once } from '../lib/once.js';

/** Object types Create field accepts. */
export const FIELD_OBJECT_TYPES = ['CONTACT', 'COMPANY', 'OPPORTUNITY', 'CAMPAIGN_MEMBER'] as const;
/** Object types a relationship side (and a field list filter) may name. */
export const RELATIONSHIP_OBJECT_TYPES = [...FIELD_OBJECT_TYPES, 'CAMPAIGN', 'CUSTOM_OBJECT'] as const;
export const DATA_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DATE', 'DATETIME'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/**
 * A field definition as GET /v2/fields lists it (the spec does not show the item; extra members
 * kept), and POST /v2/fields answers it (`data.field`).
 */
export const fieldSchema = once(() =>
  z.looseObject({
    key: z.string(),
    label: z.string(),
    objectType: z.string(),
    dataType: z.string(),
    readOnly: z.boolean().optional(),
    customObjectId: z.string().optional(),
  }),
);
export type FieldDefinition = z.output<ReturnType<typeof fieldSchema>>;

/** `data.fields` of GET /v2/fields. */
export const fieldListAnswer = once(() => z.array(fieldSchema()));

/** `data` of POST /v2/fields/relationships. */
export const relationshipResult = once(() => {
  const reference = z.looseObject({ key: z.string(), objectType: z.string(), customObjectId: z.string().optional() });
  return z.looseObject({ sourceField: reference, relatedFields: z.array(reference) });
});

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
export type ListFieldsQuery = {
  objectType?: string;
  limit?: number;
  cursor?: string;
};

/** True when a listed definition belongs to this custom object (or does not say which it belongs to). */
export function isFieldOfCustomObject(field: FieldDefinition, customObjectId: string): boolean {
  if (field.objectType.toUpperCase() !== 'CUSTOM_OBJECT') return false;
  return field.customObjectId === undefined || field.customObjectId.toLowerCase() === customObjectId.toLowerCase();
}
