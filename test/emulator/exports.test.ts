import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { EMAIL_EVENT_TYPES } from '../../src/emulator/model.js';
import { FIXTURE_CONTACTS, FIXTURE_DELETED_CONTACT_ID, FIXTURE_EVENTS } from '../../src/emulator/seed/fixtures.js';
import { admin, call, expectError } from './helpers.js';

let emu: Emulator;
let bulk: Emulator;
beforeAll(async () => {
  [emu, bulk] = await Promise.all([
    startEmulator({ port: 0, quiet: true, rateLimit: 0 }),
    startEmulator({ port: 0, quiet: true, rateLimit: 0, seed: 'none', seedContacts: 12_000, seedEvents: 9_000 }),
  ]);
});
afterAll(async () => {
  await Promise.all([emu.close(), bulk.close()]);
});

type Row = Record<string, any>;
const post = (e: Emulator, path: string, body: unknown, key?: string) =>
  call(e, 'POST', `/v2/exports/${path}`, { body, key });

/** Every page from a first body; returns rows, pages and the last non-null cursor. */
async function walk(e: Emulator, path: string, first: Record<string, unknown>, member: string) {
  const rows: Row[] = [];
  const pages: Row[][] = [];
  let lastCursor: string | null = null;
  let body: Record<string, unknown> = first;
  for (;;) {
    const res = await post(e, path, body);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    pages.push(res.json.data[member]);
    rows.push(...res.json.data[member]);
    const next = res.json.pagination.nextCursor;
    if (next === null) return { rows, pages, lastCursor };
    lastCursor = next;
    body = {
      cursor: next,
      ...(first.eventType ? { eventType: first.eventType } : {}),
      ...(first.limit ? { limit: first.limit } : {}),
    };
  }
}

const key = (r: Row, at: string, id: string) => `${r[at]}|${r[id]}`;
const sortedBy = (rows: Row[], at: string, id: string) =>
  rows.every((r, i) => i === 0 || key(rows[i - 1], at, id) < key(r, at, id));

describe('POST /v2/exports/contacts', () => {
  it('walks every contact once, by updatedAt then id, with fields keyed by label; default page 1000', async () => {
    const { rows, pages } = await walk(emu, 'contacts', {}, 'contacts');
    expect(pages[0]).toHaveLength(1000);
    expect(rows).toHaveLength(emu.store.business('acme').contacts.size);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(sortedBy(rows, 'updatedAt', 'id')).toBe(true);
    const ada = rows.find((r) => r.id === FIXTURE_CONTACTS.ada.id)!;
    expect(Object.keys(ada)).toEqual([
      'id',
      'sfdcLeadId',
      'sfdcContactId',
      'sfdcAccountId',
      'email',
      'subscriptionStatus',
      'createdAt',
      'updatedAt',
      'fields',
    ]);
    expect(ada.fields).toMatchObject({ 'First name': 'Ada', Score: 42, VIP: true, Birthday: '1815-12-10' });
  });

  it('clamps limit to 1..5000 and refuses a limit that is not a number', async () => {
    expect((await post(emu, 'contacts', { limit: 0 })).json.data.contacts).toHaveLength(1);
    expect((await post(emu, 'contacts', { limit: 2.9 })).json.data.contacts).toHaveLength(2);
    expect((await post(bulk, 'contacts', { limit: 99_999 })).json.data.contacts).toHaveLength(5000);
    expectError(await post(emu, 'contacts', { limit: 'ten' }), 400, 'invalid_request');
  });

  it('the last non-null cursor later yields the contacts created or updated since, and nothing else', async () => {
    const first = await walk(emu, 'contacts', { limit: 500 }, 'contacts');
    const lastPage = first.pages.at(-1)!;
    await call(emu, 'POST', '/v2/contacts', {
      body: { email: FIXTURE_CONTACTS.grace.email, fields: { city: 'Arlington' } },
    });
    await call(emu, 'POST', '/v2/contacts', { body: { email: 'export.newcomer@example.com' } });
    const again = await walk(emu, 'contacts', { cursor: first.lastCursor, limit: 500 }, 'contacts');
    const tail = again.rows.slice(lastPage.length);
    expect(again.rows.slice(0, lastPage.length).map((r) => r.id)).toEqual(lastPage.map((r) => r.id));
    expect(tail.map((r) => r.email)).toEqual([FIXTURE_CONTACTS.grace.email, 'export.newcomer@example.com']);
    expect(tail[0].fields.City).toBe('Arlington');
  });

  it('rejects tampered, foreign and garbage cursors with 400 invalid_cursor', async () => {
    const cursor = (await post(emu, 'contacts', { limit: 1 })).json.pagination.nextCursor as string;
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(Buffer.from(body, 'base64url').toString().replace('acme', 'acmf')).toString('base64url');
    expectError(await post(emu, 'contacts', { cursor: `${forged}.${mac}` }), 400, 'invalid_cursor');
    expectError(await post(emu, 'contacts', { cursor: 'garbage' }), 400, 'invalid_cursor');
    expectError(await post(emu, 'contacts', { cursor: 42 }), 400, 'invalid_cursor');
    const emailCursor = (await post(emu, 'email-events', { eventType: 'EMAIL_SEND', limit: 1 })).json.pagination
      .nextCursor;
    expectError(await post(emu, 'contacts', { cursor: emailCursor }), 400, 'invalid_cursor');
    // An empty cursor is the first page.
    expect((await post(emu, 'contacts', { cursor: '' })).status).toBe(200);
  });

  it('all three exports are gated: 403 export_not_enabled for the basic key', async () => {
    expectError(await post(emu, 'contacts', {}, emu.keys.basic), 403, 'export_not_enabled');
    expectError(
      await post(emu, 'custom-events', { occurredAt: { start: '2025-01-01T00:00:00Z' } }, emu.keys.basic),
      403,
      'export_not_enabled',
    );
    expectError(
      await post(emu, 'email-events', { eventType: 'EMAIL_OPEN' }, emu.keys.basic),
      403,
      'export_not_enabled',
    );
  });
});

describe('POST /v2/exports/custom-events', () => {
  const start = '2024-11-01T00:00:00Z';

  it('needs a window first, then the cursor alone: both is invalid_window; a reversed window is invalid_request', async () => {
    expectError(await post(emu, 'custom-events', {}), 400, 'invalid_request');
    expectError(await post(emu, 'custom-events', { occurredAt: { start: 'yesterday' } }), 400, 'invalid_request');
    expectError(
      await post(emu, 'custom-events', { occurredAt: { start: '2025-02-01T00:00:00Z', end: '2025-01-01T00:00:00Z' } }),
      400,
      'invalid_request',
    );
    const first = await post(emu, 'custom-events', { occurredAt: { start } });
    const cursor = first.json.pagination.nextCursor;
    expectError(await post(emu, 'custom-events', { occurredAt: { start }, cursor }), 400, 'invalid_window');
    expectError(await post(emu, 'custom-events', { cursor: cursor.slice(0, -2) + 'AA' }), 400, 'invalid_cursor');
  });

  it('fills pages across segments: every event once, by occurredAt, in about rows/limit calls', async () => {
    const { rows, pages } = await walk(emu, 'custom-events', { occurredAt: { start } }, 'events');
    const total = emu.store.business('acme').customEvents.length;
    expect(rows.length).toBe(total);
    expect(pages.length).toBeLessThanOrEqual(Math.ceil(total / 1000) + 1);
    expect(pages[0]).toHaveLength(1000); // November 2024 has no events: the page goes on into later weeks
    const small = await walk(emu, 'custom-events', { occurredAt: { start }, limit: 100 }, 'events');
    expect(small.pages.slice(0, -2).every((p) => p.length === 100)).toBe(true); // then the last rows, then the empty page after the present
    expect(small.rows.map((r) => r.eventId)).toEqual(rows.map((r) => r.eventId));
    expect(sortedBy(rows, 'occurredAt', 'eventId')).toBe(true);
    expect(rows[0]).toEqual({
      eventId: FIXTURE_EVENTS.adaSignedUp.eventId,
      contactId: FIXTURE_CONTACTS.ada.id,
      occurredAt: '2024-12-10T10:00:00.000Z',
      createdAt: '2024-12-10T10:00:00.250Z',
      eventName: 'signed_up',
      source: 'PUBLIC_API',
      contactEmail: 'ada@example.com',
      userId: 'user-ada',
      clientEventId: 'fixture-event-1',
      data: { plan: 'trial' },
    });
    const orphan = rows.find((r) => r.eventId === FIXTURE_EVENTS.orphan.eventId)!;
    expect(orphan).toMatchObject({ contactId: FIXTURE_DELETED_CONTACT_ID, contactEmail: null, userId: null });
  });

  it('a long empty window costs a call per ~19 years (segments are bounded per page), with an empty page and a cursor between', async () => {
    const empty = await walk(
      emu,
      'custom-events',
      { occurredAt: { start: '1990-01-01T00:00:00Z', end: '2016-01-01T00:00:00Z' } },
      'events',
    );
    expect(empty.pages).toEqual([[], []]);
    expect(empty.lastCursor).toEqual(expect.any(String));
    // Events after ~19 empty years: an empty page with a cursor, then the events.
    const late = await walk(
      emu,
      'custom-events',
      { occurredAt: { start: '2005-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z' } },
      'events',
    );
    expect(late.pages[0]).toEqual([]);
    expect(late.pages).toHaveLength(2);
    expect(late.rows.length).toBeGreaterThan(0);
  });

  it('the window is half-open: an event at start is in, one at end is out', async () => {
    const at = FIXTURE_EVENTS.adaSignedUp.occurredAt;
    const from = await walk(
      emu,
      'custom-events',
      { occurredAt: { start: at, end: '2024-12-12T10:00:00.000Z' } },
      'events',
    );
    expect(from.rows.map((r) => r.eventId)).toEqual([
      FIXTURE_EVENTS.adaSignedUp.eventId,
      FIXTURE_EVENTS.adaPurchase.eventId,
    ]);
    const until = await walk(
      emu,
      'custom-events',
      { occurredAt: { start: '2024-12-01T00:00:00Z', end: at } },
      'events',
    );
    expect(until.rows).toEqual([]);
  });

  it('resolves email and userId per row (null once the contact is deleted), and resumes with new events', async () => {
    const who = await call(emu, 'POST', '/v2/contacts', { body: { email: 'short.lived@example.com' } });
    const id = who.json.data.cnvContactId;
    const window = { occurredAt: { start: '2026-01-01T00:00:00Z' } };
    await call(emu, 'POST', '/v2/events', {
      body: { event: 'was_here', email: 'short.lived@example.com', clientEventId: 'export-test-0' },
    });
    const before = await walk(emu, 'custom-events', window, 'events');
    expect(before.rows.map((r) => r.clientEventId)).toContain('export-test-0');
    expect(before.pages.at(-1)).toEqual([]); // the page after the present ends the walk
    await call(emu, 'POST', '/v2/events', {
      body: { event: 'came_and_went', email: 'short.lived@example.com', clientEventId: 'export-test-1' },
    });
    await admin(emu, 'POST', `/_emulator/contacts/${id}/delete`);
    const resumed = await walk(emu, 'custom-events', { cursor: before.lastCursor }, 'events');
    const mine = resumed.rows.filter((r) => r.clientEventId === 'export-test-1');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ contactId: id, contactEmail: null, userId: null, eventName: 'came_and_went' });
  });

  it('clamps limit to 1000', async () => {
    const res = await post(bulk, 'custom-events', { occurredAt: { start: '2024-06-01T00:00:00Z' }, limit: 5000 });
    expect(res.json.data.events).toHaveLength(1000);
  });
});

describe('POST /v2/exports/email-events', () => {
  it('exports each of the nine types, case-insensitively, every row of that type once', async () => {
    const stored = emu.store.business('acme').emailEvents;
    for (const type of EMAIL_EVENT_TYPES) {
      const { rows } = await walk(emu, 'email-events', { eventType: type.toLowerCase(), limit: 5000 }, 'events');
      expect(rows.length, type).toBe(stored.filter((e) => e.eventType === type).length);
      expect(rows.length, type).toBeGreaterThan(0);
      expect(rows.every((r) => r.eventType === type)).toBe(true);
      expect(sortedBy(rows, 'occurredAt', 'eventId')).toBe(true);
    }
    const opens = (await walk(emu, 'email-events', { eventType: 'EMAIL_OPEN' }, 'events')).rows;
    expect(opens.some((r) => r.emailName === null) && opens.some((r) => typeof r.emailName === 'string')).toBe(true);
    const bounce = (await post(emu, 'email-events', { eventType: 'Email_Bounce', limit: 1 })).json.data.events[0];
    expect(bounce).toMatchObject({
      bounceType: 'HARD',
      errorMessage: expect.any(String),
      sourceType: 'BLAST',
      isBot: false,
    });
  });

  it('gives invalid_field for an unsupported type and invalid_cursor for a cursor of another type', async () => {
    expectError(await post(emu, 'email-events', { eventType: 'EMAIL_FORWARD' }), 400, 'invalid_field');
    expectError(await post(emu, 'email-events', {}), 400, 'invalid_request');
    const cursor = (await post(emu, 'email-events', { eventType: 'EMAIL_SEND', limit: 1 })).json.pagination.nextCursor;
    expectError(await post(emu, 'email-events', { eventType: 'EMAIL_OPEN', cursor }), 400, 'invalid_cursor');
  });

  it('admin-appended events come after the last non-null cursor', async () => {
    const first = await walk(emu, 'email-events', { eventType: 'EMAIL_CLICK', limit: 100 }, 'events');
    const added = await admin(emu, 'POST', '/_emulator/email-events', {
      events: [
        {
          eventType: 'email_click',
          email: FIXTURE_CONTACTS.ada.email,
          link: 'https://example.com/a,b',
          emailName: null,
        },
      ],
    });
    expect(added.status).toBe(200);
    const again = await walk(
      emu,
      'email-events',
      { eventType: 'EMAIL_CLICK', cursor: first.lastCursor, limit: 100 },
      'events',
    );
    expect(again.rows.at(-1)).toMatchObject({
      eventId: added.json.created[0].eventId,
      contactId: FIXTURE_CONTACTS.ada.id,
      link: 'https://example.com/a,b',
      emailName: null,
    });
    expect(again.rows.length).toBe(first.pages.at(-1)!.length + 1);
  });
});

describe('bulk rows (seedContacts, seedEvents)', () => {
  it('are exported in order like stored rows, and cost nothing to start', async () => {
    const contacts = await walk(bulk, 'contacts', { limit: 5000 }, 'contacts');
    expect(contacts.rows).toHaveLength(12_000);
    expect(sortedBy(contacts.rows, 'updatedAt', 'id')).toBe(true);
    expect(new Set(contacts.rows.map((r) => r.email)).size).toBe(12_000);
    const info = await admin(bulk, 'GET', '/_emulator/exports/info');
    expect(info.json.bulk).toEqual({ contacts: 12_000, events: 9_000 });
    const events = await walk(
      bulk,
      'custom-events',
      { occurredAt: { start: '2024-06-01T00:00:00Z', end: '2024-06-02T00:00:00Z' } },
      'events',
    );
    expect(events.rows).toHaveLength(9_000);
    expect(events.rows[5]).toMatchObject({ contactId: contacts.rows[5].id, contactEmail: contacts.rows[5].email });
    let emails = 0;
    for (const type of EMAIL_EVENT_TYPES)
      emails += (await walk(bulk, 'email-events', { eventType: type, limit: 5000 }, 'events')).rows.length;
    expect(emails).toBe(9_000);
  });

  it('a million of each starts at once', async () => {
    const started = performance.now();
    const big = await startEmulator({
      port: 0,
      quiet: true,
      seed: 'none',
      seedContacts: 1_000_000,
      seedEvents: 1_000_000,
    });
    const res = await post(big, 'contacts', { limit: 5000 });
    await big.close();
    expect(res.json.data.contacts).toHaveLength(5000);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
