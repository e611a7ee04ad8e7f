import { describe, expect, it } from 'vitest';
import { SETTABLE_STATUSES, SYSTEM_STATUSES, UPSERT_BODY_KEYS } from '../../src/endpoints/contacts.js';
import * as emulator from '../../src/emulator/model.js';
import { FILE_ROW_FLAGS } from '../../src/cmdutil/contact-upsert-flags.js';
import { UPSERT_COLUMNS } from '../../src/contacts/file-row.js';
import { plainValidRow, upsertRowSchema } from '../../src/contacts/upsert-row.js';
import { prepareUpsertRow } from '../../src/contacts/file-row.js';
import { ColumnResolver, NO_COLUMN_FLAGS } from '../../src/batch/columns/column-resolver.js';

// The rules of a contact upsert are written once (src/endpoints/contacts.ts): the emulator, the
// --status flag, the row schema, its zod-free fast path and the file's columns all read them.
describe('the contact upsert rules, single-sourced', () => {
  it('the emulator accepts the statuses the client lets through, the same list', () => {
    expect(emulator.SETTABLE_STATUSES).toBe(SETTABLE_STATUSES);
    expect(emulator.SYSTEM_STATUSES).toBe(SYSTEM_STATUSES);
  });

  it('every client path takes exactly the settable statuses, and refuses the system ones', () => {
    const status = FILE_ROW_FLAGS.status;
    for (const s of [...SETTABLE_STATUSES, ...SYSTEM_STATUSES]) {
      const settable = (SETTABLE_STATUSES as readonly string[]).includes(s);
      const body = { email: 'ada@example.com', subscriptionStatus: s.toLowerCase() };
      expect(upsertRowSchema.safeParse(body).success, `row schema, ${s}`).toBe(settable);
      expect(plainValidRow(body) !== undefined, `fast path, ${s}`).toBe(settable);
      expect(status.schema.safeParse(s).success, `--status, ${s}`).toBe(settable);
    }
  });

  it("a file's system-set status (an export's BOUNCED contact) is left out of the body, as the emulator seeds them", () => {
    const columns = new ColumnResolver(UPSERT_COLUMNS, NO_COLUMN_FLAGS);
    columns.meet(['email', 'subscriptionStatus'], true);
    for (const s of SYSTEM_STATUSES) {
      const row = { line: 1, values: { email: 'ada@example.com', subscriptionStatus: s.toLowerCase() } };
      const prepared = prepareUpsertRow(row, {}, columns);
      expect(prepared.payload).toEqual({ email: 'ada@example.com' });
      expect(prepared.note).toMatch(/set by the system/);
    }
  });

  it('the fast path, the file columns and the row schema name the same body keys', () => {
    expect(UPSERT_COLUMNS.keys).toBe(UPSERT_BODY_KEYS);
    const full = {
      email: 'ada@example.com',
      cnvContactId: '7f0c2f4e-1b2a-4c3d-9e8f-0a1b2c3d4e5f',
      subscriptionStatus: 'SUBSCRIBED',
      fields: {},
      companyFields: {},
      updateOnly: true,
    };
    expect(Object.keys(full)).toEqual([...UPSERT_BODY_KEYS]);
    expect(Object.keys(plainValidRow(full) ?? {})).toEqual([...UPSERT_BODY_KEYS]);
    expect(Object.keys(upsertRowSchema.parse(full))).toEqual([...UPSERT_BODY_KEYS]);
  });
});
