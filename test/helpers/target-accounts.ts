import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { bulkOf } from '../../src/emulator/bulk.js';
import { SETTABLE_STATUSES } from '../../src/endpoints/contacts.js';
import type { EmulatorFixture } from './emulator.js';

// Two accounts for target-cnv's tests (test/e2e/target*.test.ts): what each holds, read from the
// emulators' stores in-process (no request counted), and the fields both need.

/** The package's target-cnv executable (Meltano's `executable: target-cnv`). */
export const TARGET_BIN = resolve(import.meta.dirname, '../../bin/target-cnv.js');

/** The CONTACT fields of the emulator's bulk contacts (src/emulator/bulk.ts), by key and label. */
const BULK_FIELDS = [
  ['firstName', 'First name', 'STRING'],
  ['lastName', 'Last name', 'STRING'],
  ['city', 'City', 'STRING'],
  ['score', 'Score', 'NUMBER'],
] as const;

/** Creates the bulk contacts' fields in an account seeded with none (POST /v2/fields, the full key). */
export async function createBulkFields(fx: EmulatorFixture): Promise<void> {
  for (const [key, label, dataType] of BULK_FIELDS) {
    const res = await fetch(`${fx.emulator.url}/v2/fields`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': fx.emulator.keys.full },
      body: JSON.stringify({ key, label, objectType: 'CONTACT', dataType }),
    });
    if (res.status !== 200) throw new Error(`creating field ${key}: ${res.status} ${await res.text()}`);
  }
}

const acme = (fx: EmulatorFixture) => fx.emulator.store.business('acme');
const settable = new Set<string>(SETTABLE_STATUSES);

/**
 * The differences between the bulk contacts of `source` (bulk.0 ... bulk.N-1) and the contacts
 * of `copy`, matched by email: fields compared by key, the subscription status where a client can
 * set it (BOUNCED is the system's), and no contact more in the copy. None: equal.
 */
export function contactDifferences(source: EmulatorFixture, copy: EmulatorFixture, count: number): string[] {
  const diffs: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bulk.${i}@example.com`;
    const a = acme(source).contacts.findByEmail(email);
    const b = acme(copy).contacts.findByEmail(email);
    if (!a) diffs.push(`${email}: not in the source`);
    else if (!b) diffs.push(`${email}: missing`);
    else {
      if (!isDeepStrictEqual({ ...b.fields }, { ...a.fields }))
        diffs.push(`${email}: fields ${JSON.stringify(b.fields)} instead of ${JSON.stringify(a.fields)}`);
      if (settable.has(a.subscriptionStatus) && a.subscriptionStatus !== b.subscriptionStatus)
        diffs.push(`${email}: ${b.subscriptionStatus} instead of ${a.subscriptionStatus}`);
    }
  }
  const size = acme(copy).contacts.size;
  if (size !== count) diffs.push(`the copy holds ${size} contacts, not ${count}`);
  return diffs;
}

/** The custom events of an account as `name|email|data`, sorted: the source's bulk ones, or the copy's stored ones. */
export function eventLines(fx: EmulatorFixture, bulkEvents?: number): string[] {
  const business = acme(fx);
  const line = (name: string, contactId: string, data: unknown) =>
    `${name}|${business.contacts.get(contactId)?.email ?? '?'}|${JSON.stringify(data)}`;
  const events =
    bulkEvents === undefined
      ? business.customEvents
      : Array.from({ length: bulkEvents }, (_, i) => bulkOf(business)!.customEvent(i));
  return events.map((e) => line(e.eventName, e.contactId, e.data)).sort();
}

/** The copy's custom events that share a clientEventId with another (none: each event once). */
export function repeatedEvents(fx: EmulatorFixture): string[] {
  const seen = new Set<string>();
  return acme(fx)
    .customEvents.map((e) => e.clientEventId)
    .filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
}

/** Requests of one route the emulator answered since its stats were reset (`POST /v2/contacts`). */
export async function requestsOf(fx: EmulatorFixture, route: string): Promise<number> {
  const stats = (await fx.stats()) as { byRoute: Record<string, number> };
  return stats.byRoute[route] ?? 0;
}
