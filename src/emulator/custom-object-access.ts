import { EmulatorError, invalidRequest } from './error-answer.js';
import type { CustomObject, CustomObjectRecord } from './model.js';
import type { BusinessStore } from './store.js';
import { isUuid } from './validate.js';

// Businesses whose account has custom objects enabled (the spec's "custom objects are not
// enabled" 403). Business "basic" stands for an account without them.
const CUSTOM_OBJECTS_ENABLED = new Set(['acme']);

/** 403 forbidden unless the business has custom objects enabled. */
export function assertCustomObjectsEnabled(store: BusinessStore): void {
  if (!CUSTOM_OBJECTS_ENABLED.has(store.id)) {
    throw new EmulatorError(403, 'forbidden', 'Custom objects are not enabled for this account');
  }
}

/** The custom object with this id: 400 invalid_request for a non-UUID, 404 custom_object_not_found when unknown. */
export function requireCustomObject(store: BusinessStore, id: unknown, name = 'customObjectId'): CustomObject {
  if (typeof id !== 'string' || !isUuid(id.trim())) throw invalidRequest(`${name} must be a UUID`);
  const found = store.customObjects.get(id.trim().toLowerCase());
  if (!found)
    throw new EmulatorError(404, 'custom_object_not_found', `No custom object ${id.trim()} in this workspace`);
  return found;
}

/** The records of one custom object (clientDedupKey -> record), created on first use. */
export function recordsOf(store: BusinessStore, customObjectId: string): Map<string, CustomObjectRecord> {
  let records = store.records.get(customObjectId);
  if (!records) {
    records = new Map();
    store.records.set(customObjectId, records);
  }
  return records;
}
