import { validateFieldWrites } from '../field-values.js';
import { writeRecord } from '../record-writer.js';
import type { DataType, StoredField } from '../model.js';
import type { SeedContext } from './seed-context.js';
import { FIXTURE_CUSTOM_OBJECT as CO, FIXTURE_RECORDS, FIXTURE_TARGETS, SUBSCRIPTION_FIELDS as F } from './fixtures.js';

const DEFINED_AT = '2024-11-15T00:00:00.000Z';
const RECORDS_AT = '2024-12-15T09:00:00.000Z';

const field = (key: string, label: string, dataType: DataType, readOnly = false): StoredField => ({
  key,
  label,
  objectType: 'CUSTOM_OBJECT',
  dataType,
  readOnly,
  customObjectId: CO.id,
  createdAt: DEFINED_AT,
});

/**
 * The custom object "Subscription" of business "acme" (the only business with custom objects
 * enabled): its fields, two relationship pairs, the keyed standard targets (FIXTURE_TARGETS) and
 * the fixture records. Runs after contacts and campaigns, whose fixtures they point at.
 */
export function seedCustomObjects({ business }: SeedContext): void {
  if (business.id !== 'acme') return;
  business.customObjects.set(CO.id, { ...CO, createdAt: DEFINED_AT, updatedAt: DEFINED_AT });
  for (const def of [
    field(F.plan, 'Plan name', 'STRING'),
    field(F.seats, 'Seats', 'NUMBER'),
    field(F.autoRenew, 'Auto-renew', 'BOOLEAN'),
    field(F.startDate, 'Start date', 'DATE'),
    field(F.renewedAt, 'Renewed at', 'DATETIME'),
    field(F.syncedAt, 'Synced at', 'DATETIME', true),
  ]) {
    business.fields.add(def);
  }
  const relate = (key: string, label: string, reverseKey: string, reverseLabel: string, toContact: boolean) => {
    const target = toContact
      ? { objectType: 'CONTACT' as const }
      : { objectType: 'CUSTOM_OBJECT' as const, customObjectId: CO.id };
    business.fields.add({
      ...field(key, label, 'STRING'),
      relationship: {
        targetObjectType: target.objectType,
        targetCustomObjectId: target.customObjectId,
        pairedKey: reverseKey,
        reverse: false,
      },
    });
    business.fields.add({
      key: reverseKey,
      label: reverseLabel,
      ...target,
      dataType: 'STRING',
      readOnly: false,
      relationship: { targetObjectType: 'CUSTOM_OBJECT', targetCustomObjectId: CO.id, pairedKey: key, reverse: true },
      createdAt: DEFINED_AT,
    });
  };
  relate(F.subscriber, 'Subscriber', 'subscriptions', 'Subscriptions', true);
  relate(F.parent, 'Parent subscription', 'childSubscriptions', 'Child subscriptions', false);

  for (const t of Object.values(FIXTURE_TARGETS)) business.targets.add({ ...t, fields: {}, createdAt: DEFINED_AT });

  for (const fx of Object.values(FIXTURE_RECORDS)) {
    const writes = validateFieldWrites(business, 'CUSTOM_OBJECT', fx.fields, {
      mapName: 'fields',
      customObjectId: CO.id,
    });
    writeRecord(business, CO.id, { clientDedupKey: fx.clientDedupKey, writes, id: fx.id, at: RECORDS_AT });
  }
}
