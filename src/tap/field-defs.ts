import { allFieldPages } from '../endpoints/field-pages.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import type { HttpClient } from '../http/client.js';

/** Every CONTACT field definition (all pages). */
export async function contactFieldDefs(http: HttpClient, signal: AbortSignal): Promise<FieldDefinition[]> {
  const defs: FieldDefinition[] = [];
  for await (const page of allFieldPages(http, { objectType: 'CONTACT', limit: 1000 }, signal)) defs.push(...page);
  return defs;
}
