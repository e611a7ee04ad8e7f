import { EmulatorError, invalidRequest } from './error-answer.js';
import type { Contact } from './model.js';
import type { BusinessStore } from './store.js';
import { isUuid, isValidEmail } from './validate.js';

/** The identifiers a request may carry for one contact. */
export interface ContactIdentifiers {
  cnvContactId?: string;
  userId?: string;
  email?: string;
}

/** Reads an identifier: absent, null or blank -> undefined; not a string -> 400 with `code`. */
export function readIdentifier(
  body: Record<string, unknown>,
  key: string,
  code = 'invalid_request',
): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new EmulatorError(400, code, `${key} must be a string`);
  return v.trim() || undefined;
}

/** Reads cnvContactId, userId and email from a body and checks their formats. */
export function readIdentifiers(body: Record<string, unknown>): ContactIdentifiers {
  const ids: ContactIdentifiers = {
    cnvContactId: readIdentifier(body, 'cnvContactId'),
    userId: readIdentifier(body, 'userId'),
    email: readIdentifier(body, 'email', 'invalid_email'),
  };
  checkIdentifierFormats(ids.email, ids.cnvContactId);
  return ids;
}

/** 400 invalid_email for a malformed email, 400 invalid_request for a non-UUID cnvContactId. */
export function checkIdentifierFormats(email: string | undefined, cnvContactId: string | undefined): void {
  if (email !== undefined && !isValidEmail(email))
    throw new EmulatorError(400, 'invalid_email', `Malformed email: ${email}`);
  if (cnvContactId !== undefined && !isUuid(cnvContactId)) throw invalidRequest('cnvContactId must be a UUID');
}

export function contactNotFound(): EmulatorError {
  return new EmulatorError(404, 'contact_not_found', 'No contact matched the given identifiers');
}

export function missingIdentifier(message = 'Either email or cnvContactId is required'): EmulatorError {
  return new EmulatorError(400, 'missing_identifier', message);
}

/**
 * The spec's resolution order: cnvContactId, then userId, then email (most recently
 * updated). Only the first identifier given is used: a cnvContactId that matches nothing
 * does not fall back. Returns undefined when nothing matches.
 */
export function findContact(store: BusinessStore, ids: ContactIdentifiers): Contact | undefined {
  if (ids.cnvContactId !== undefined) return store.contacts.get(ids.cnvContactId);
  if (ids.userId !== undefined) {
    const byUser = store.contacts.findByUserId(ids.userId);
    if (byUser || ids.email === undefined) return byUser;
  }
  return ids.email !== undefined ? store.contacts.findByEmail(ids.email) : undefined;
}
