import { randomBytes, randomUUID } from 'node:crypto';
import { EmulatorError } from '../error-answer.js';
import { applyFieldWrites, sameFieldMaps, validateFieldWrites, type FieldWrite } from '../field-values.js';
import { settlePending, syncSourceLinks } from '../relationships.js';
import { SETTABLE_STATUSES, type Contact, type SettableStatus } from '../model.js';
import { serve, type ApiContext, type ApiRouter, type RouteResult } from '../router.js';
import type { BusinessStore } from '../store.js';
import { checkIdentifierFormats, contactNotFound, missingIdentifier, readIdentifier } from '../contact-identifiers.js';
import { optionalBoolean, optionalObject, queryParam } from '../validate.js';
import { ENDPOINTS } from '../../endpoints/endpoints.js';

/** POST /v2/contacts (upsert) and GET /v2/contacts (gated). */
export function contactRoutes(router: ApiRouter): void {
  serve(router, ENDPOINTS.upsertContact, upsertContact);
  serve(router, ENDPOINTS.getContact, getContact);
}

/** The Get contact shape; a value whose field was deleted (emulator admin) is not shown. */
function contactView(c: Contact, store: BusinessStore): Record<string, unknown> {
  const fields = Object.fromEntries(
    Object.entries(c.fields).filter(([key]) => store.fields.get('CONTACT', key) !== undefined),
  );
  return {
    cnvContactId: c.id,
    email: c.email,
    userId: c.userId,
    subscriptionStatus: c.subscriptionStatus,
    fields,
    createdAt: store.shownTime(c.createdAt),
    updatedAt: store.shownTime(c.updatedAt),
  };
}

function upsertContact({ body, store }: ApiContext): RouteResult {
  const email = readIdentifier(body, 'email', 'invalid_email');
  const cnvContactId = readIdentifier(body, 'cnvContactId');
  const updateOnly = optionalBoolean(body, 'updateOnly') ?? false;
  const syncToCrm = optionalBoolean(body, 'syncToCrm') ?? false;
  const preserveExisting = optionalBoolean(body, 'preserveExisting') ?? false;
  const fields = optionalObject(body, 'fields') ?? {};
  const companyFields = optionalObject(body, 'companyFields') ?? {};

  if (email === undefined && cnvContactId === undefined) {
    throw missingIdentifier();
  }
  checkIdentifierFormats(email, cnvContactId);
  const status = settableStatus(body.subscriptionStatus);
  const fieldWrites = validateFieldWrites(store, 'CONTACT', fields, { mapName: 'fields' });
  const companyWrites = validateFieldWrites(store, 'COMPANY', companyFields, { mapName: 'companyFields' });

  // Resolution: cnvContactId first (email then updates the address), else most recent by email.
  let contact: Contact | undefined;
  if (cnvContactId !== undefined) {
    contact = store.contacts.get(cnvContactId);
    if (!contact) throw contactNotFound();
  } else {
    contact = store.contacts.findByEmail(email as string);
    if (!contact && updateOnly) throw contactNotFound();
  }

  if (!contact) {
    const newFields = {};
    applyFieldWrites(newFields, fieldWrites, false);
    const created = store.contacts.create({
      email: email as string,
      subscriptionStatus: status ?? 'NO_STATUS',
      fields: newFields,
      companyId: writeCompany(store, null, companyWrites, false),
      sfdcLeadId: syncToCrm ? fakeLeadId() : null,
    });
    linkContact(store, created, fieldWrites, companyWrites);
    return { body: { data: { cnvContactId: created.id, contactCreated: true } } };
  }

  store.contacts.update(contact, (c) => {
    if (cnvContactId !== undefined && email !== undefined) c.email = email;
    if (status) c.subscriptionStatus = status;
    applyFieldWrites(c.fields, fieldWrites, preserveExisting);
    c.companyId = writeCompany(store, c.companyId, companyWrites, preserveExisting);
    if (syncToCrm && !c.sfdcLeadId && !c.sfdcContactId) c.sfdcLeadId = fakeLeadId();
  });
  linkContact(store, contact, fieldWrites, companyWrites);
  return { body: { data: { cnvContactId: contact.id, contactCreated: false } } };
}

function getContact({ query, store }: ApiContext): RouteResult {
  const cnvContactId = queryParam(query, 'cnvContactId');
  const email = queryParam(query, 'email');
  let contact: Contact | undefined;
  if (cnvContactId !== undefined) {
    // cnvContactId takes precedence; email is then ignored entirely.
    checkIdentifierFormats(undefined, cnvContactId);
    contact = store.contacts.get(cnvContactId);
  } else if (email !== undefined) {
    checkIdentifierFormats(email, undefined);
    contact = store.contacts.findByEmail(email);
  } else {
    throw missingIdentifier();
  }
  if (!contact) throw contactNotFound();
  return { body: { data: { contact: contactView(contact, store) } } };
}

function settableStatus(v: unknown): SettableStatus | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(SETTABLE_STATUSES as readonly string[]).includes(v)) {
    throw new EmulatorError(
      400,
      'invalid_subscription_status',
      `subscriptionStatus must be one of ${SETTABLE_STATUSES.join(', ')}`,
    );
  }
  return v as SettableStatus;
}

/**
 * Relationship values written through `fields` (and `companyFields`) link the contact (and its
 * company) to their targets; then relationships pending on this contact (its userId or email)
 * resolve.
 */
function linkContact(
  store: BusinessStore,
  contact: Contact,
  fieldWrites: FieldWrite[],
  companyWrites: FieldWrite[],
): void {
  syncSourceLinks(
    store,
    { type: 'CONTACT', id: contact.id, fields: contact.fields },
    fieldWrites.map((w) => w.def),
  );
  const company = contact.companyId ? store.companies.get(contact.companyId) : undefined;
  if (company)
    syncSourceLinks(
      store,
      { type: 'COMPANY', id: company.id, fields: company.fields },
      companyWrites.map((w) => w.def),
    );
  settlePending(store, 'CONTACT', [contact.userId, contact.email]);
}

/** Writes company fields, creating the contact's company when needed; returns its id. */
function writeCompany(
  store: BusinessStore,
  companyId: string | null,
  writes: FieldWrite[],
  preserve: boolean,
): string | null {
  if (writes.length === 0) return companyId;
  const now = store.clock.now();
  let company = companyId ? store.companies.get(companyId) : undefined;
  if (!company) {
    company = { id: randomUUID(), fields: {}, createdAt: now, updatedAt: now };
    store.companies.set(company.id, company);
  }
  const before = { ...company.fields };
  applyFieldWrites(company.fields, writes, preserve);
  if (!sameFieldMaps(before, company.fields)) company.updatedAt = now;
  return company.id;
}

// "Syncing to the CRM" in the emulator just assigns a CRM lead id (Salesforce-style 00Q prefix).
function fakeLeadId(): string {
  return `00Q${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 15)}`;
}
