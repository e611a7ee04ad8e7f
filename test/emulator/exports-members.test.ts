import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import {
  CONTACT_FIELDS,
  EMAIL_EVENT_TYPES,
  EXPORT_MEMBERS,
  type ExportKind,
  type ExportMember,
} from '../../src/endpoints/exports.js';
import { call } from './helpers.js';

// The emulator's export rows held to the one member table (src/endpoints/exports.ts) that the
// CSV's fixed columns and the tap's schemas are made from: the same members, in the same order,
// each of its type (null only where the table allows it).

let demo: Emulator;
let bulk: Emulator;
beforeAll(async () => {
  [demo, bulk] = await Promise.all([
    startEmulator({ port: 0, quiet: true, rateLimit: 0 }),
    startEmulator({ port: 0, quiet: true, rateLimit: 0, seed: 'none', seedContacts: 30, seedEvents: 90 }),
  ]);
});
afterAll(async () => {
  await Promise.all([demo.close(), bulk.close()]);
});

type Row = Record<string, unknown>;

/** Every row of one export, from the first page to the last. */
async function rowsOf(emu: Emulator, path: string, first: Row, member: string): Promise<Row[]> {
  const rows: Row[] = [];
  let body = first;
  for (;;) {
    const res = await call(emu, 'POST', `/v2/exports/${path}`, { body: { ...body, limit: 5000 } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    rows.push(...res.json.data[member]);
    const next = res.json.pagination.nextCursor;
    if (next === null) return rows;
    body = { ...(first.eventType ? { eventType: first.eventType } : {}), cursor: next };
  }
}

async function exportRows(emu: Emulator, kind: ExportKind): Promise<Row[]> {
  if (kind === 'contacts') return rowsOf(emu, 'contacts', {}, 'contacts');
  if (kind === 'custom-events')
    return rowsOf(emu, 'custom-events', { occurredAt: { start: '1970-01-01T00:00:00Z' } }, 'events');
  const all = await Promise.all(
    EMAIL_EVENT_TYPES.map((eventType) => rowsOf(emu, 'email-events', { eventType }, 'events')),
  );
  return all.flat();
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Why a value does not fit its member; undefined when it does. */
function misfit(m: ExportMember, value: unknown): string | undefined {
  if (value === null) return m.nullable ? undefined : 'null';
  const fits =
    m.type === 'array'
      ? Array.isArray(value)
      : m.type === 'object'
        ? typeof value === 'object' && !Array.isArray(value)
        : typeof value === m.type;
  if (!fits) return `not ${m.type}: ${JSON.stringify(value)}`;
  if (m.format === 'date-time' && !ISO_DATE_TIME.test(value as string)) return `not a date-time: ${value}`;
  return undefined;
}

describe.each(['contacts', 'custom-events', 'email-events'] as const)('the %s export', (kind) => {
  const members = EXPORT_MEMBERS[kind];
  const names = [...members.map((m) => m.name), ...(kind === 'contacts' ? [CONTACT_FIELDS] : [])];

  it.each([
    ['demo data', () => demo],
    ['bulk data', () => bulk],
  ])('%s: every row has the table’s members, in its order, each of its type', async (_, emu) => {
    const rows = await exportRows(emu(), kind);
    expect(rows.length).toBeGreaterThan(kind === 'email-events' ? EMAIL_EVENT_TYPES.length : 3);
    const problems: string[] = [];
    for (const row of rows) {
      if (JSON.stringify(Object.keys(row)) !== JSON.stringify(names)) problems.push(`members ${Object.keys(row)}`);
      for (const m of members) {
        const why = misfit(m, row[m.name]);
        if (why) problems.push(`${m.name}: ${why}`);
      }
      const fields =
        kind === 'contacts' && misfit({ name: CONTACT_FIELDS, type: 'object', nullable: false }, row.fields);
      if (fields) problems.push(`fields: ${fields}`);
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });
});
