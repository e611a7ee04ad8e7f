import { EmulatorError, invalidRequest } from '../error-answer.js';
import { fieldView, readObjectType } from '../field-definitions.js';
import { RELATIONSHIP_OBJECT_TYPES, type StoredField } from '../model.js';
import type { AdminContext, AdminRouter, RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { queryParam } from '../validate.js';
import { businessOf, ok } from './admin.js';

/**
 * Admin routes that change the account's fields as a user of the dashboard would: relabel a
 * field, delete one. Neither is an API operation. Keys are unique across the account (the
 * spec's Create field rule), so the key names one field; `?objectType=` only checks it.
 */
export function fieldAdminRoutes(router: AdminRouter): void {
  router.add('POST', '/_emulator/fields/:key', relabelField);
  router.add('POST', '/_emulator/fields/:key/delete', deleteField);
}

function relabelField(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const def = fieldOf(ctx, business);
  const label = ctx.body.label;
  if (typeof label !== 'string' || label.trim() === '') throw invalidRequest('label is required (a non-empty string)');
  business.fields.relabel(def.key, label.trim());
  return ok({ field: fieldView(def), business: business.id });
}

/**
 * Deletes a CONTACT or COMPANY field (not a relationship field). Its values go with it: they are
 * removed from the stored contacts and companies, and no longer returned anywhere (a bulk
 * contact's computed value is left out when read). No contact's updatedAt changes.
 */
function deleteField(ctx: AdminContext): RouteResult {
  const business = businessOf(ctx);
  const def = fieldOf(ctx, business);
  if (def.relationship)
    throw invalidRequest(
      `Field "${def.key}" is a relationship field; the emulator deletes only plain CONTACT and COMPANY fields`,
    );
  if (def.objectType !== 'CONTACT' && def.objectType !== 'COMPANY') {
    throw invalidRequest(
      `Field "${def.key}" is a ${def.objectType} field; the emulator deletes only CONTACT and COMPANY fields`,
    );
  }
  business.fields.delete(def.key);
  const holders = def.objectType === 'CONTACT' ? business.contacts.stored() : [...business.companies.values()];
  let values = 0;
  for (const holder of holders) {
    if (!Object.hasOwn(holder.fields, def.key)) continue;
    delete holder.fields[def.key];
    values++;
  }
  return ok({ deleted: true, field: fieldView(def), values, business: business.id });
}

/** The field with the path's key, of `?objectType=` when given; 404 field_not_found otherwise. */
function fieldOf(ctx: AdminContext, business: BusinessStore): StoredField {
  const key = ctx.params.key;
  const rawType = queryParam(ctx.query, 'objectType');
  const objectType = rawType === undefined ? undefined : readObjectType(rawType, RELATIONSHIP_OBJECT_TYPES);
  const def = business.fields.list(objectType).find((d) => d.key === key);
  if (!def) {
    throw new EmulatorError(
      404,
      'field_not_found',
      `No ${objectType ?? ''}${objectType ? ' ' : ''}field with key "${key}" in business ${business.id}`,
    );
  }
  return def;
}
