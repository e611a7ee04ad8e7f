import { allFieldPages } from '../endpoints/field-pages.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import type { HttpClient } from '../http/client.js';

/** Every CONTACT field definition (all pages). */
export async function contactFieldDefs(http: HttpClient, signal: AbortSignal): Promise<FieldDefinition[]> {
  const defs: FieldDefinition[] = [];
  // A loop, not push(...page): a server's page of 200,000 definitions would overflow the stack.
  for await (const page of allFieldPages(http, { objectType: 'CONTACT', limit: 1000 }, signal))
    for (const f of page) defs.push(f);
  return defs;
}
