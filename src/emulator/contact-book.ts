import { randomUUID } from 'node:crypto';
import { ContactChangeLog } from './change-log.js';
import type { MonotonicClock } from './monotonic-clock.js';
import { ComputedOverlay, type ComputedContacts } from './computed-contacts.js';
import type { Contact, FieldMap, SubscriptionStatus } from './model.js';

/** Emails are matched case-insensitively and without surrounding spaces. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The contacts of one business, indexed by id, email (several contacts may share one)
 * and userId. Every mutation goes through `update` so indexes and updatedAt stay right.
 *
 * Besides the stored contacts, a book may have computed ones (`useComputed`: the bulk
 * contacts). Lookups find them as they are computed until they are written: a write stores
 * the contact here like any other (and logs it), a delete removes it; only those take memory.
 */
export class ContactBook {
  private readonly byId = new Map<string, Contact>();
  private readonly emailIndex = new Map<string, Set<string>>();
  private readonly userIndex = new Map<string, Set<string>>();
  private readonly computed = new ComputedOverlay();
  /** Every write in updatedAt order, walked by the contacts export (with the computed contacts). */
  readonly changes = new ContactChangeLog(
    (id, at) => this.byId.get(id)?.updatedAt === at,
    () => this.byId.size,
  );

  constructor(private readonly clock: MonotonicClock) {}

  /** Gives the book computed contacts (kept across `clear()`: configuration, not data). */
  useComputed(source: ComputedContacts): void {
    this.computed.use(source);
  }

  /** Whether computed contact i is still as computed (not written, not deleted since). */
  isComputedLive(i: number): boolean {
    return this.computed.isLive(i);
  }

  /** Whether some computed contact was written or deleted (else every index is live). */
  get anyComputedReplaced(): boolean {
    return this.computed.anyReplaced;
  }

  /** Every contact: stored and computed. */
  get size(): number {
    return this.byId.size + this.computed.liveCount;
  }

  /** The contact with this id; a computed one is a new object each call, until written. */
  get(id: string): Contact | undefined {
    return this.byId.get(id) ?? this.computed.byId(id);
  }

  /** The stored contacts in insertion order: seeded, created, and computed ones once written. */
  stored(): Contact[] {
    return [...this.byId.values()];
  }

  /** Every contact with this email, most recently updated first. */
  allByEmail(email: string): Contact[] {
    const key = normalizeEmail(email);
    return this.collect(this.emailIndex.get(key), this.computed.byEmail(key));
  }

  /** Every contact with this userId, most recently updated first. */
  allByUserId(userId: string): Contact[] {
    return this.collect(this.userIndex.get(userId), this.computed.byUserId(userId));
  }

  /** The most recently updated contact with this email (the spec's lookup rule). */
  findByEmail(email: string): Contact | undefined {
    return this.allByEmail(email)[0];
  }

  findByUserId(userId: string): Contact | undefined {
    return this.allByUserId(userId)[0];
  }

  create(init: {
    id?: string;
    email: string;
    userId?: string | null;
    subscriptionStatus?: SubscriptionStatus;
    fields?: FieldMap;
    companyId?: string | null;
    sfdcLeadId?: string | null;
    sfdcContactId?: string | null;
    sfdcAccountId?: string | null;
    createdAt?: string;
    updatedAt?: string;
  }): Contact {
    const now = init.createdAt ?? this.clock.now();
    const contact: Contact = {
      id: init.id ?? randomUUID(),
      email: init.email,
      userId: init.userId ?? null,
      subscriptionStatus: init.subscriptionStatus ?? 'NO_STATUS',
      fields: { ...(init.fields ?? {}) },
      companyId: init.companyId ?? null,
      sfdcLeadId: init.sfdcLeadId ?? null,
      sfdcContactId: init.sfdcContactId ?? null,
      sfdcAccountId: init.sfdcAccountId ?? null,
      createdAt: now,
      updatedAt: init.updatedAt ?? now,
    };
    if (this.byId.has(contact.id) || this.computed.hasId(contact.id))
      throw new Error(`duplicate contact id ${contact.id}`);
    this.clock.observe(contact.updatedAt);
    this.byId.set(contact.id, contact);
    this.index(contact);
    this.changes.record(contact.id, contact.updatedAt);
    return contact;
  }

  /**
   * Applies `mutate`, re-indexes and bumps updatedAt, unless nothing changed (a no-op write
   * keeps updatedAt). `changes: true` skips the comparison when the caller knows it changes.
   * A computed contact that changes is stored from then on (and leaves its computed place);
   * one that does not change stays computed. Returns the stored contact: a copy of a computed
   * contact written since it was read is applied to the stored one.
   */
  update(contact: Contact, mutate: (c: Contact) => void, changes = false): Contact {
    const stored = this.byId.get(contact.id);
    const target = stored ?? contact;
    const computed = stored === undefined && this.computed.hasId(contact.id);
    const before = changes ? '' : snapshot(target);
    if (!computed) this.unindex(target);
    mutate(target);
    if (!changes && snapshot(target) === before) {
      if (!computed) this.index(target);
      return target;
    }
    target.updatedAt = this.clock.now();
    if (computed) {
      this.computed.replace(target.id);
      this.byId.set(target.id, target);
    }
    this.index(target);
    this.changes.record(target.id, target.updatedAt);
    return target;
  }

  delete(id: string): boolean {
    const contact = this.byId.get(id);
    if (!contact) return this.computed.replace(id);
    this.unindex(contact);
    this.byId.delete(id);
    return true;
  }

  /** Drops every stored contact; computed ones are as computed again. */
  clear(): void {
    this.byId.clear();
    this.emailIndex.clear();
    this.userIndex.clear();
    this.changes.clear();
    this.computed.clear();
  }

  private collect(ids: Set<string> | undefined, computed: Contact | undefined): Contact[] {
    const list = ids ? [...ids].map((id) => this.byId.get(id)).filter((c): c is Contact => !!c) : [];
    if (computed) list.push(computed);
    // ISO strings of one format sort chronologically.
    return list.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  private index(c: Contact): void {
    addTo(this.emailIndex, normalizeEmail(c.email), c.id);
    if (c.userId !== null) addTo(this.userIndex, c.userId, c.id);
  }

  private unindex(c: Contact): void {
    removeFrom(this.emailIndex, normalizeEmail(c.email), c.id);
    if (c.userId !== null) removeFrom(this.userIndex, c.userId, c.id);
  }
}

// Everything a write can change, in a fixed order (fields sorted: key order is not data).
function snapshot(c: Contact): string {
  const fields = Object.keys(c.fields)
    .sort()
    .map((k) => [k, c.fields[k]]);
  return JSON.stringify([
    c.email,
    c.userId,
    c.subscriptionStatus,
    c.companyId,
    c.sfdcLeadId,
    c.sfdcContactId,
    c.sfdcAccountId,
    fields,
  ]);
}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}
