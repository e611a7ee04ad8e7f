import type { Contact } from './model.js';

/**
 * Contacts made from their index i in [0, count) when asked for (the bulk contacts of
 * `seedContacts`, bulk.ts), so that a million of them cost no memory. Lookups take a
 * normalised email and an exact id or userId, and return the index, if one matches.
 */
export interface ComputedContacts {
  readonly count: number;
  /** A new object each call: the contact as computed, before any write. */
  contact(i: number): Contact;
  indexOfId(id: string): number | undefined;
  indexOfEmail(normalizedEmail: string): number | undefined;
  indexOfUserId(userId: string): number | undefined;
}

/**
 * The computed contacts of a contact book and which of them are no longer as computed: a
 * written one is stored in the book like any contact (its index is replaced here), a deleted
 * one is gone. Only replaced indexes take memory. The source is configuration and survives
 * `clear()`; the replaced indexes are data and do not.
 */
export class ComputedOverlay {
  private source: ComputedContacts | undefined;
  private readonly replaced = new Set<number>();

  /** Sets (or, with undefined, removes) the computed contacts. */
  use(source: ComputedContacts | undefined): void {
    this.source = source;
    this.replaced.clear();
  }

  /** Computed contacts still as computed (neither written nor deleted). */
  get liveCount(): number {
    return this.source ? this.source.count - this.replaced.size : 0;
  }

  /** Whether any computed contact was written or deleted (the export's fast path has none). */
  get anyReplaced(): boolean {
    return this.replaced.size > 0;
  }

  /** Whether computed contact i is still as computed. */
  isLive(i: number): boolean {
    return !this.replaced.has(i);
  }

  /** Whether this id names a computed contact still as computed. */
  hasId(id: string): boolean {
    return this.live(this.source?.indexOfId(id)) !== undefined;
  }

  byId(id: string): Contact | undefined {
    return this.contact(this.source?.indexOfId(id));
  }

  byEmail(normalizedEmail: string): Contact | undefined {
    return this.contact(this.source?.indexOfEmail(normalizedEmail));
  }

  byUserId(userId: string): Contact | undefined {
    return this.contact(this.source?.indexOfUserId(userId));
  }

  /** The computed contact with this id is written (now stored) or deleted; false if none is live. */
  replace(id: string): boolean {
    const i = this.live(this.source?.indexOfId(id));
    if (i === undefined) return false;
    this.replaced.add(i);
    return true;
  }

  /** Every computed contact is as computed again (a reset). */
  clear(): void {
    this.replaced.clear();
  }

  private live(i: number | undefined): number | undefined {
    return i !== undefined && !this.replaced.has(i) ? i : undefined;
  }

  private contact(i: number | undefined): Contact | undefined {
    const live = this.live(i);
    return live === undefined ? undefined : this.source!.contact(live);
  }
}
