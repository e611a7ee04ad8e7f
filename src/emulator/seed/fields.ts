import type { DataType, ObjectType } from '../model.js';
import type { SeedContext } from './seed-context.js';

/** A demo field definition (without createdAt). */
interface DemoField {
  key: string;
  label: string;
  objectType: ObjectType;
  dataType: DataType;
  readOnly: boolean;
}

const f = (objectType: ObjectType, key: string, label: string, dataType: DataType, readOnly = false): DemoField => ({
  key,
  label,
  objectType,
  dataType,
  readOnly,
});

/** Field definitions of business "acme" (constant, not seed-dependent). */
export const DEMO_FIELDS: readonly DemoField[] = [
  f('CONTACT', 'firstName', 'First name', 'STRING'),
  f('CONTACT', 'lastName', 'Last name', 'STRING'),
  f('CONTACT', 'city', 'City', 'STRING'),
  f('CONTACT', 'score', 'Score', 'NUMBER'),
  f('CONTACT', 'vip', 'VIP', 'BOOLEAN'),
  f('CONTACT', 'birthday', 'Birthday', 'DATE'),
  f('CONTACT', 'lastSeenAt', 'Last seen at', 'DATETIME'),
  f('CONTACT', 'leadScore', 'Lead score', 'NUMBER', true),
  f('CONTACT', 'createdBy', 'Created by', 'STRING', true),
  f('COMPANY', 'companyName', 'Company name', 'STRING'),
  f('COMPANY', 'industry', 'Industry', 'STRING'),
  f('COMPANY', 'employees', 'Employees', 'NUMBER'),
  f('COMPANY', 'website', 'Website', 'STRING'),
  f('COMPANY', 'accountOwner', 'Account owner', 'STRING', true),
  f('OPPORTUNITY', 'opportunityName', 'Opportunity name', 'STRING'),
  f('OPPORTUNITY', 'amount', 'Amount', 'NUMBER'),
  f('OPPORTUNITY', 'closeDate', 'Close date', 'DATE'),
  f('OPPORTUNITY', 'stage', 'Stage', 'STRING'),
  f('CAMPAIGN_MEMBER', 'memberNote', 'Member note', 'STRING'),
  f('CAMPAIGN_MEMBER', 'attended', 'Attended', 'BOOLEAN'),
  f('CAMPAIGN_MEMBER', 'registeredAt', 'Registered at', 'DATETIME'),
];

/** Business "basic" gets a small subset. */
const BASIC_KEYS = new Set(['firstName', 'lastName', 'city', 'score', 'companyName']);

const FIELDS_CREATED_AT = Date.parse('2024-11-01T00:00:00.000Z');

/** Seeds field definitions (before contacts, which use them). */
export function seedFields(ctx: SeedContext): void {
  const defs = ctx.business.id === 'acme' ? DEMO_FIELDS : DEMO_FIELDS.filter((d) => BASIC_KEYS.has(d.key));
  defs.forEach((d, i) => {
    ctx.business.fields.add({ ...d, createdAt: new Date(FIELDS_CREATED_AT + i * 1000).toISOString() });
  });
}
