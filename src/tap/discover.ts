import { stringifyJson } from '../lib/exact-number.js';
import { writeWithBackpressure } from '../output/write.js';
import { discoveredCatalog } from './catalog.js';
import { contactFieldDefs } from './field-defs.js';
import type { TapDeps } from './run-deps.js';
import { campaignsSchema, fieldsSchema } from './list-schemas.js';
import { contactsSchema, customEventsSchema, emailEventsSchema, type JsonSchema } from './schemas.js';
import type { StreamName } from './stream-table.js';

/** --discover: the catalog of the account (its CONTACT fields read now), on stdout. */
export async function discover(deps: Pick<TapDeps, 'http' | 'signal' | 'stdout'>): Promise<void> {
  const catalog = discoveredCatalog(await streamSchemas(deps));
  await writeWithBackpressure(deps.stdout, stringifyJson(catalog, 2) + '\n');
}

/** Every stream's schema (the CONTACT field definitions read now, unless `contacts` is false: none then). */
export async function streamSchemas(
  deps: Pick<TapDeps, 'http' | 'signal'>,
  contacts = true,
): Promise<Record<StreamName, JsonSchema>> {
  const defs = contacts ? await contactFieldDefs(deps.http, deps.signal) : [];
  return {
    contacts: contactsSchema(defs),
    custom_events: customEventsSchema(),
    email_events: emailEventsSchema(),
    fields: fieldsSchema(),
    campaigns: campaignsSchema(),
  };
}
