import type { Company, FieldMap, SubscriptionStatus } from '../model.js';
import type { BusinessStore } from '../store.js';
import { SEED_EPOCH_MS, iso, type SeedContext } from './seed-context.js';
import { FIXTURE_BASIC_CONTACTS, FIXTURE_CONTACTS, type FixtureContact } from './fixtures.js';
import type { Rng } from './prng.js';
import { CITIES, COMPANY_SUFFIXES, COMPANY_WORDS, FIRST_NAMES, INDUSTRIES, LAST_NAMES } from './names.js';

/** Generated contacts per business (fixtures come on top). */
const GENERATED = { acme: 2000, basic: 4 } as Record<string, number>;
const COMPANY_POOL = { acme: 150, basic: 2 } as Record<string, number>;

const STATUS_WEIGHTS: ReadonlyArray<readonly [SubscriptionStatus, number]> = [
  ['SUBSCRIBED', 55],
  ['UNSUBSCRIBED', 15],
  ['NO_STATUS', 20],
  ['BOUNCED', 7],
  ['COMPLAINED', 3],
];

/** Seeds fixture contacts first, then generated ones (emails like ada.lovelace.17@example.com). */
export function seedContacts(ctx: SeedContext): void {
  const { business, rng } = ctx;
  const fixtures: FixtureContact[] =
    business.id === 'acme' ? Object.values(FIXTURE_CONTACTS) : Object.values(FIXTURE_BASIC_CONTACTS);
  for (const fx of fixtures) addFixture(business, fx);

  const companies = makeCompanies(business, rng, COMPANY_POOL[business.id] ?? 0);
  const count = GENERATED[business.id] ?? 0;
  const hasField = (key: string) => business.fields.hasKey(key);
  const drafts: Array<{ email: string; createdMs: number; updatedMs: number; rest: Omit<Draft, 'email'> }> = [];
  let t = SEED_EPOCH_MS;
  for (let i = 1; i <= count; i++) {
    t += rng.int(1, 45 * 60_000);
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    // A few contacts share an address with an earlier one (the spec allows duplicates).
    const email = drafts.length > 10 && rng.chance(0.03) ? rng.pick(drafts).email : `${first}.${last}.${i}@example.com`;
    const updatedMs = rng.chance(0.3) ? t + rng.int(1, 30 * 86_400_000) : t;
    drafts.push({ email, createdMs: t, updatedMs, rest: draftRest(rng, i, first, last, companies, hasField) });
  }
  // updatedAt must be unique and strictly ordered: insert by updatedAt, nudging ties by 1 ms.
  drafts.sort((a, b) => a.updatedMs - b.updatedMs);
  let lastMs = 0;
  for (const d of drafts) {
    const updatedMs = Math.max(d.updatedMs, lastMs + 1);
    lastMs = updatedMs;
    business.contacts.create({
      id: d.rest.id,
      email: d.email,
      userId: d.rest.userId,
      subscriptionStatus: d.rest.status,
      fields: d.rest.fields,
      companyId: d.rest.companyId,
      sfdcLeadId: d.rest.sfdcLeadId,
      sfdcContactId: d.rest.sfdcContactId,
      sfdcAccountId: d.rest.sfdcAccountId,
      createdAt: iso(Math.min(d.createdMs, updatedMs)),
      updatedAt: iso(updatedMs),
    });
  }
}

interface Draft {
  id: string;
  email: string;
  userId: string | null;
  status: SubscriptionStatus;
  fields: FieldMap;
  companyId: string | null;
  sfdcLeadId: string | null;
  sfdcContactId: string | null;
  sfdcAccountId: string | null;
}

function draftRest(
  rng: Rng,
  i: number,
  first: string,
  last: string,
  companies: Company[],
  hasField: (key: string) => boolean,
): Omit<Draft, 'email'> {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const fields: FieldMap = {};
  const set = (key: string, value: FieldMap[string]) => {
    if (hasField(key)) fields[key] = value;
  };
  set('firstName', cap(first));
  set('lastName', last.split('-').map(cap).join(' '));
  if (rng.chance(0.7)) set('city', rng.pick(CITIES));
  if (rng.chance(0.6)) set('score', rng.int(0, 100));
  if (rng.chance(0.3)) set('vip', rng.chance(0.5));
  if (rng.chance(0.4)) set('birthday', iso(Date.UTC(rng.int(1950, 2004), rng.int(0, 11), rng.int(1, 28))).slice(0, 10));
  if (rng.chance(0.5)) set('lastSeenAt', iso(SEED_EPOCH_MS + rng.int(0, 60 * 86_400_000)));
  if (rng.chance(0.5)) set('leadScore', rng.int(0, 100));
  set('createdBy', rng.pick(['import', 'form', 'api', 'crm-sync']));
  const hasCrm = rng.chance(0.15);
  return {
    id: rng.uuid(),
    userId: rng.chance(0.4) ? `user-${10000 + i}` : null,
    status: rng.weighted(STATUS_WEIGHTS),
    fields,
    companyId: companies.length > 0 && rng.chance(0.4) ? rng.pick(companies).id : null,
    sfdcLeadId: !hasCrm && rng.chance(0.2) ? `00Q${rng.alnum(15)}` : null,
    sfdcContactId: hasCrm ? `003${rng.alnum(15)}` : null,
    sfdcAccountId: hasCrm ? `001${rng.alnum(15)}` : null,
  };
}

function makeCompanies(business: BusinessStore, rng: Rng, n: number): Company[] {
  const list: Company[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${rng.pick(COMPANY_WORDS)} ${rng.pick(COMPANY_WORDS)} ${rng.pick(COMPANY_SUFFIXES)}`;
    const at = iso(SEED_EPOCH_MS - 86_400_000 + i * 1000);
    const fields: FieldMap = { companyName: name };
    if (business.fields.hasKey('industry')) {
      fields.industry = rng.pick(INDUSTRIES);
      fields.employees = rng.int(2, 5000);
      fields.website = `https://${name.split(' ')[0].toLowerCase()}-${i}.example.com`;
      fields.accountOwner = rng.pick(['charles', 'ada', 'grace']);
    }
    const company: Company = { id: rng.uuid(), fields, createdAt: at, updatedAt: at };
    business.companies.set(company.id, company);
    list.push(company);
  }
  return list;
}

function addFixture(business: BusinessStore, fx: FixtureContact): void {
  let companyId: string | null = null;
  if (fx.companyFields) {
    // Fixture companies reuse the contact id's tail so they are constant too.
    companyId = `c${fx.id.slice(1)}`;
    business.companies.set(companyId, {
      id: companyId,
      fields: { ...fx.companyFields },
      createdAt: fx.createdAt,
      updatedAt: fx.updatedAt,
    });
  }
  business.contacts.create({
    id: fx.id,
    email: fx.email,
    userId: fx.userId,
    subscriptionStatus: fx.subscriptionStatus,
    fields: { ...fx.fields },
    companyId,
    createdAt: fx.createdAt,
    updatedAt: fx.updatedAt,
  });
}
