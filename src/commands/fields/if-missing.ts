import type { CreateFieldBody, FieldDefinition } from '../../endpoints/fields.js';
import { CliError, ExitCode } from '../../errors.js';

/**
 * `fields create --if-missing`: the field the account has already, when it is the one asked for.
 * With a key, the field of that key, whatever its object type (keys are unique across them);
 * without, the field of the object type whose label is the one asked (trimmed, any case). A field
 * found that differs is exit 3 (`field_differs`), naming each difference; none found: undefined.
 */
export async function existingField(
  body: CreateFieldBody,
  pages: (objectType: string) => AsyncIterable<FieldDefinition[]>,
): Promise<FieldDefinition | undefined> {
  const label = body.label.toLowerCase();
  const same = (f: FieldDefinition) =>
    body.key !== undefined
      ? f.key === body.key
      : f.objectType === body.objectType && f.label.trim().toLowerCase() === label;
  // A key may be held by a field of another object type: look there too.
  const types =
    body.key !== undefined
      ? [body.objectType, 'CONTACT', 'COMPANY', 'OPPORTUNITY', 'CAMPAIGN_MEMBER']
      : [body.objectType];
  let found: FieldDefinition | undefined;
  for (const objectType of new Set(types)) {
    for await (const page of pages(objectType)) found ??= page.find(same);
    if (found) break;
  }
  if (!found) return undefined;
  const differs = [
    found.objectType !== body.objectType && `object type ${found.objectType}, not ${body.objectType}`,
    found.dataType !== body.dataType && `data type ${found.dataType}, not ${body.dataType}`,
    found.label !== body.label && `label "${found.label}", not "${body.label}"`,
  ].filter((d): d is string => typeof d === 'string');
  if (differs.length === 0) return found;
  throw new CliError(`field "${found.key}" exists, but differs from the one asked for: ${differs.join('; ')}`, {
    exitCode: ExitCode.rejected,
    code: 'field_differs',
    hint:
      body.key !== undefined
        ? 'change the field in the account, or give this one another --key'
        : 'change the field in the account, or give this one another --label (or a --key of its own)',
  });
}
