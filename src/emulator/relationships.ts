import type { RelationshipInfo } from './model.js';
import type { BusinessStore } from './store.js';
import { isValidEmail } from './validate.js';

/**
 * The id of the record a relationship value points at, or undefined when it does not exist
 * (the relationship is then left pending; targets are never created).
 * - CONTACT: the value is the contact's userId (its key in the source system), falling back
 *   to its email (most recently updated contact with that address).
 * - CUSTOM_OBJECT: the target record's clientDedupKey in the target custom object.
 * - COMPANY and CAMPAIGN: the target's id. Other object types never resolve in the emulator.
 */
export function resolveRelationship(store: BusinessStore, rel: RelationshipInfo, value: string): string | undefined {
  switch (rel.targetObjectType) {
    case 'CONTACT': {
      const contact = store.contacts.findByUserId(value) ?? (isValidEmail(value.trim()) ? store.contacts.findByEmail(value) : undefined);
      return contact?.id;
    }
    case 'CUSTOM_OBJECT':
      return rel.targetCustomObjectId ? store.records.get(rel.targetCustomObjectId)?.get(value)?.id : undefined;
    case 'COMPANY':
      return store.companies.get(value)?.id;
    case 'CAMPAIGN':
      return store.campaigns.get(value)?.id;
    default:
      return undefined;
  }
}
