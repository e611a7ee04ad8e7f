import { stringifyJson } from '../lib/exact-number.js';
import { writeWithBackpressure } from '../output/write.js';
import { discoveredCatalog } from './catalog.js';
import { contactFieldDefs } from './field-defs.js';
import type { TapDeps } from './run-deps.js';
import { contactsSchema, customEventsSchema, emailEventsSchema } from './schemas.js';

/** --discover: the catalog of the account (its CONTACT fields read now), on stdout. */
export async function discover(deps: Pick<TapDeps, 'http' | 'signal' | 'stdout'>): Promise<void> {
  const defs = await contactFieldDefs(deps.http, deps.signal);
  const catalog = discoveredCatalog({
    contacts: contactsSchema(defs),
    custom_events: customEventsSchema(),
    email_events: emailEventsSchema(),
  });
  await writeWithBackpressure(deps.stdout, stringifyJson(catalog, 2) + '\n');
}
