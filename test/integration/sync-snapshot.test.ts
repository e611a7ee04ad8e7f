import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExactNumber } from '../../src/lib/exact-number.js';
import { SyncDecider } from '../../src/sync/decide.js';
import { FieldLabels } from '../../src/sync/field-labels.js';
import { decimalKey, sameValue } from '../../src/sync/same-value.js';
import { SnapshotBytes, SnapshotDamage } from '../../src/sync/snapshot-file.js';
import { SnapshotIndex } from '../../src/sync/snapshot-index.js';
import type { Snapshot } from '../../src/sync/snapshot.js';
import { rowKeys } from '../../src/sync/row-keys.js';
import type { FieldDefinition } from '../../src/endpoints/fields.js';

const row = (
  id: string,
  email: string | null,
  updatedAt: string,
  fields: Record<string, unknown> = {},
  status = 'SUBSCRIBED',
) =>
  JSON.stringify({
    id,
    sfdcLeadId: null,
    sfdcContactId: null,
    sfdcAccountId: null,
    email,
    subscriptionStatus: status,
    createdAt: updatedAt,
    updatedAt,
    fields,
  });

describe('rowKeys', () => {
  it("reads id, email and updatedAt of the API's compact row, and of any other spelling by walking the top-level members", () => {
    expect(rowKeys(row('a', 'Ada@X.com', '2025-01-01T00:00:00.000Z'))).toEqual({ id: 'a', email: 'Ada@X.com' });
    // Another member order, spaces, an escaped email, a field labelled "email" inside fields.
    const other =
      '{ "fields": {"email": "not-me@x.com", "id": "no"}, "updatedAt" : "2025-01-02T00:00:00Z", "email": "b\\u00e9@x.com", "id": "b" }';
    expect(rowKeys(other)).toEqual({ id: 'b', email: 'bé@x.com' });
    // The fast path does not take an "email" that only a nested object holds.
    expect(rowKeys('{"id":"c","fields":{"email":"x@y.z"},"updatedAt":"2025-01-01T00:00:00Z"}')).toEqual({
      id: 'c',
      email: null,
    });
    expect(rowKeys(row('d', null, 'never'))).toEqual({ id: 'd', email: null });
  });

  it('refuses what is not a contact row', () => {
    for (const line of ['', 'null', '[]', '{}', '{"email":"a@b.c"}', '{"id":42}', '{"id":"x"', 'garbage'])
      expect(rowKeys(line), line).toBeUndefined();
  });
});

describe('SnapshotIndex', () => {
  it('keeps the latest version of each contact, and finds contacts by id and by email (any case, old emails forgotten)', () => {
    const index = new SnapshotIndex();
    index.add('id-1', 'a@x.com', 0, 10);
    index.add('id-2', 'A@X.com ', 10, 10);
    index.add('id-1', 'new@x.com', 20, 10);
    expect(index.size).toBe(2);
    expect(index.lines).toBe(3);
    expect(index.slotsById('id-1').map((s) => index.line(s).offset)).toEqual([20]);
    expect(index.slotsByEmail('a@x.com').map((s) => index.line(s).offset)).toEqual([10]);
    expect(index.slotsByEmail(' NEW@x.com')).toHaveLength(1);
    expect(index.slotsById('id-3')).toEqual([]);
  });

  it('holds a hundred thousand contacts and their email changes, each found again', () => {
    const index = new SnapshotIndex();
    const n = 100_000;
    for (let i = 0; i < n; i++) index.add(`id-${i}`, `c${i}@x.com`, i * 10, 10);
    for (let i = 0; i < n; i += 7) index.add(`id-${i}`, `moved${i}@x.com`, (n + i) * 10, 10);
    expect(index.size).toBe(n);
    for (let i = 0; i < n; i += 997) {
      expect(index.slotsById(`id-${i}`)).toHaveLength(1);
      expect(index.slotsByEmail(`c${i}@x.com`)).toHaveLength(i % 7 === 0 ? 0 : 1);
      if (i % 7 === 0) expect(index.slotsByEmail(`moved${i}@x.com`)).toHaveLength(1);
    }
  });
});

describe('sameValue', () => {
  it("compares by the field's type, every digit kept", () => {
    expect(decimalKey('1.50')).toBe(decimalKey('1.5'));
    expect(decimalKey('15e-1')).toBe(decimalKey('1.5'));
    expect(decimalKey('-0.0')).toBe(decimalKey('0'));
    expect(decimalKey('9007199254740993')).not.toBe(decimalKey('9007199254740992'));
    expect(sameValue('NUMBER', new ExactNumber('9007199254740993'), new ExactNumber('9007199254740993'))).toBe('same');
    expect(sameValue('NUMBER', new ExactNumber('9007199254740993'), 9007199254740992)).toBe('differs');
    expect(sameValue('NUMBER', 42, 42)).toBe('same');
    expect(sameValue('NUMBER', '42', 42)).toBe('unsure'); // the export shows a NUMBER as text: not exact
    expect(sameValue('BOOLEAN', true, true)).toBe('same');
    expect(sameValue('BOOLEAN', true, false)).toBe('differs');
    expect(sameValue('STRING', 'Bob', '"Bob"')).toBe('differs');
    expect(sameValue('STRING', undefined, null)).toBe('same');
    expect(sameValue('STRING', 'x', null)).toBe('differs');
    expect(sameValue('DATETIME', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00.000Z')).toBe('unsure');
    expect(sameValue('DATETIME', '2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z')).toBe('differs');
    expect(sameValue('DATE', '2025-01-01', '2025-01-01')).toBe('same');
  });
});

/** A snapshot of these lines, in a file, as refreshSnapshot builds one. */
async function snapshotOf(lines: string[], labels: Record<string, string>): Promise<Snapshot> {
  const path = join(mkdtempSync(join(tmpdir(), 'cnv-snap-')), 's.ndjson');
  const text = lines.map((l) => `${l}\n`).join('');
  writeFileSync(path, text);
  const bytes = new SnapshotBytes();
  bytes.add(Buffer.from(text));
  const { index } = bytes;
  const reader = bytes.reader(path);
  const fields = new FieldLabels(new Map(Object.entries(labels)));
  return { index, reader, fieldsAt: () => fields, refresh: {} as Snapshot['refresh'], close: () => reader.close() };
}

const def = (key: string, label: string, dataType = 'STRING'): [string, FieldDefinition] => [
  key,
  { key, label, objectType: 'CONTACT', dataType } as FieldDefinition,
];

describe('SyncDecider', () => {
  it('skips only when sure', async () => {
    const snapshot = await snapshotOf(
      [
        row('id-ada', 'ada@x.com', '2025-01-01T00:00:00Z', { City: 'London', Score: 42, Tier: 'gold' }),
        row('id-old', 'twin@x.com', '2025-01-01T00:00:00Z', { City: 'Old' }),
        row('id-new', 'twin@x.com', '2025-01-02T00:00:00Z', { City: 'New' }),
        row('id-tie1', 'tie@x.com', '2025-01-01T00:00:00Z'),
        row('id-tie2', 'tie@x.com', '2025-01-01T00:00:00Z'),
        row('id-timeless', 'alone@x.com', 'not a time', { City: 'Rome' }),
      ],
      { city: 'City', score: 'Score', tier1: 'Tier', tier2: 'Tier' },
    );
    const fields = new Map([
      def('city', 'City'),
      def('score', 'Score', 'NUMBER'),
      def('tier1', 'Tier'),
      def('tier2', 'Tier'),
      def('late', 'Late'),
    ]);
    const d = () => new SyncDecider(snapshot, fields);
    expect(d().decide({ email: 'ADA@x.com', fields: { city: 'London', score: 42 } })).toMatchObject({
      action: 'unchanged',
      cnvContactId: 'id-ada',
    });
    expect(d().decide({ email: 'ada@x.com', subscriptionStatus: 'UNSUBSCRIBED' })).toMatchObject({
      action: 'update',
      changes: [{ field: 'subscriptionStatus', old: 'SUBSCRIBED', new: 'UNSUBSCRIBED' }],
    });
    // With cnvContactId, email is the new address: a change even in case only.
    expect(d().decide({ cnvContactId: 'id-ada', email: 'Ada@x.com' })).toMatchObject({
      action: 'update',
      changes: [{ field: 'email', old: 'ada@x.com', new: 'Ada@x.com' }],
    });
    expect(d().decide({ email: 'nobody@x.com', fields: { city: 'Rome' } })).toMatchObject({ action: 'create' });
    // The most recently updated contact of an email.
    expect(d().decide({ email: 'twin@x.com', fields: { city: 'New' } })).toMatchObject({
      action: 'unchanged',
      cnvContactId: 'id-new',
    });
    const unsure = (body: Record<string, unknown>) => d().decide(body).unsure?.reason;
    expect(unsure({ email: 'tie@x.com' })).toBe('same email, same time');
    // One contact of an email: its updatedAt does not matter.
    expect(d().decide({ email: 'alone@x.com', fields: { city: 'Rome' } })).toMatchObject({
      action: 'unchanged',
      cnvContactId: 'id-timeless',
    });
    expect(unsure({ email: 'ada@x.com', fields: { tier1: 'gold' } })).toBe('shared label');
    expect(unsure({ email: 'ada@x.com', fields: { late: 'x' } })).toBe('field newer than snapshot');
    expect(unsure({ email: 'ada@x.com', fields: { ghost: 'x' } })).toBe('not in field list');
    expect(unsure({ email: 'ada@x.com', companyFields: { size: 3 } })).toBe('company fields');
    expect(unsure({ email: 'ada@x.com', preserveExisting: true })).toBe('other body member');
    expect(unsure({ cnvContactId: 'id-missing' })).toBe('id not in snapshot');
    expect(unsure({ email: 'nobody@x.com', updateOnly: true })).toBe('update-only, not in snapshot');
    // Rows of one contact apply in order.
    const decider = d();
    expect(decider.decide({ email: 'ada@x.com', fields: { city: 'Paris' } }).action).toBe('update');
    expect(decider.decide({ cnvContactId: 'id-ada', fields: { city: 'London' } }).unsure?.reason).toBe(
      'earlier row, same contact',
    );
    expect(decider.decide({ email: 'fresh@x.com' }).action).toBe('create');
    expect(decider.decide({ email: 'FRESH@x.com', fields: { city: 'x' } }).unsure?.reason).toBe(
      'earlier row, same contact',
    );
    snapshot.close();
  });

  it('reads a line by the labels of when it was fetched: a field relabelled since is read by its old label, a label that may show another field is unsure', async () => {
    const snapshot = await snapshotOf(
      [
        row('id-a', 'a@x.com', '2025-01-01T00:00:00Z', {
          Town: 'Oslo',
          City: 'Rome',
          Rank: 'gold',
          'Rank (rank2)': 'silver',
        }),
      ],
      { city: 'Town', town: 'City', rank1: 'Rank', rank2: 'Rank', rank3: 'Rank (rank2)' },
    );
    // Since the fetch, city and town swapped labels: the line still holds city's value under "Town".
    const fields = new Map([
      def('city', 'City'),
      def('town', 'Town'),
      def('rank1', 'Rank'),
      def('rank2', 'Rank'),
      def('rank3', 'Rank (rank2)'),
    ]);
    const d = () => new SyncDecider(snapshot, fields);
    expect(d().decide({ email: 'a@x.com', fields: { city: 'Oslo', town: 'Rome' } })).toMatchObject({
      action: 'unchanged',
    });
    expect(d().decide({ email: 'a@x.com', fields: { city: 'Rome' } })).toMatchObject({
      action: 'update',
      changes: [{ field: 'fields.city', old: 'Oslo', new: 'Rome' }],
    });
    expect(d().decide({ email: 'a@x.com', fields: { rank3: 'silver' } }).unsure).toMatchObject({
      reason: 'shared label',
      detail: expect.stringContaining('"Rank (rank2)"'),
    });
    snapshot.close();
  });

  it('a row by email after an earlier row changed which contact that email finds is sent', async () => {
    const snapshot = await snapshotOf(
      [
        row('id-old', 'twin@x.com', '2025-01-01T00:00:00Z', { City: 'A' }),
        row('id-new', 'twin@x.com', '2025-01-02T00:00:00Z', { City: 'B' }),
        row('id-w', 'w@x.com', '2025-01-01T00:00:00Z', { City: 'B' }),
        row('id-t1', 'tie@x.com', '2025-01-01T00:00:00Z', { City: 'A' }),
        row('id-t2', 'tie@x.com', '2025-01-01T00:00:00Z', { City: 'A' }),
      ],
      { city: 'City' },
    );
    const fields = new Map([def('city', 'City')]);
    // The older twin updated by id: it is now the one a lookup by its email finds.
    let decider = new SyncDecider(snapshot, fields);
    // A row to send names the contacts it may change, so that rows reaching them by email keep their order.
    expect(decider.decide({ cnvContactId: 'id-old', fields: { city: 'C' } })).toMatchObject({
      action: 'update',
      reaches: [{ id: 'id-old', email: 'twin@x.com' }],
    });
    expect(decider.decide({ email: 'twin@x.com', fields: { city: 'B' } }).unsure?.reason).toBe(
      'earlier row, same contact',
    );
    // A contact given an email: a lookup by it finds that one, even where the snapshot has none.
    decider = new SyncDecider(snapshot, fields);
    expect(decider.decide({ cnvContactId: 'id-w', email: 'twin@x.com' }).action).toBe('update');
    expect(decider.decide({ email: 'TWIN@x.com', fields: { city: 'B' } }).unsure?.reason).toBe(
      'earlier row, same contact',
    );
    expect(decider.decide({ cnvContactId: 'id-old', email: 'fresh@x.com' }).action).toBe('update');
    expect(decider.decide({ email: 'fresh@x.com', fields: { city: 'A' } })).toMatchObject({
      action: 'update',
      unsure: { reason: 'earlier row, same contact' },
    });
    // A tie is sent, and either contact of it may be the one changed.
    decider = new SyncDecider(snapshot, fields);
    expect(decider.decide({ email: 'tie@x.com', fields: { city: 'Z' } }).unsure?.reason).toBe('same email, same time');
    expect(decider.decide({ cnvContactId: 'id-t2', fields: { city: 'A' } }).unsure?.reason).toBe(
      'earlier row, same contact',
    );
    // A row that changes nothing changes no lookup.
    decider = new SyncDecider(snapshot, fields);
    expect(decider.decide({ cnvContactId: 'id-old', fields: { city: 'A' } }).action).toBe('unchanged');
    expect(decider.decide({ email: 'twin@x.com', fields: { city: 'B' } }).action).toBe('unchanged');
    snapshot.close();
  });

  it('a line that no longer reads as a contact is damage, never a guess', async () => {
    const snapshot = await snapshotOf([row('id-a', 'a@x.com', '2025-01-01T00:00:00Z')], {});
    expect(snapshot.reader.read(snapshot.index.slotsById('id-a')[0])).toMatchObject({ id: 'id-a', email: 'a@x.com' });
    await expect(snapshotOf(['{"id":"a","email":"a@x.com"', row('b', 'b@x.com', 'x')], {})).rejects.toBeInstanceOf(
      SnapshotDamage,
    );
    snapshot.close();
    snapshot.close(); // a second close does nothing
  });
});
