import type { FieldDefinition } from '../endpoints/fields.js';
import { UsageError } from '../errors.js';
import { columnForm } from '../input/column-names.js';
import { quoteInput } from '../input/input-rows.js';
import { suggest } from '../lib/did-you-mean.js';
import { isReadOnlyField } from '../batch/columns/field-match.js';

// The keys of --field, -f, -F (and their company forms) and the names of --set, checked against
// the field definitions before anything is sent, as a file's columns are: a key no field has is
// exit 2 naming the nearest one, not a 400 from the server (or a member it ignores).

/**
 * The field key nearest `name` among these definitions (`settable`: only those a flag can set), by
 * key or label: `city`, or `firstName (label "First name")`.
 */
function nearest(name: string, defs: ReadonlyMap<string, FieldDefinition>, settable = false): string | undefined {
  const candidates = new Map<string, string>();
  for (const def of defs.values()) {
    if (settable && isReadOnlyField(def)) continue;
    if (!candidates.has(columnForm(def.key))) candidates.set(columnForm(def.key), def.key);
    if (!candidates.has(columnForm(def.label)))
      candidates.set(columnForm(def.label), `${def.key} (label ${quoteInput(def.label)})`);
  }
  const [best] = suggest(columnForm(name), [...candidates.keys()]);
  return best === undefined ? undefined : candidates.get(best);
}

/**
 * Refuses (exit 2) a key that no field of its object type has, and a read-only field; an object
 * type whose definitions were not read is not judged (the caller warned, and the API judges),
 * nor a key missing from cached definitions that could not be read again (`unknown: false`: a
 * field created since).
 */
export function checkFieldKeys(
  flags: readonly {
    flag: string;
    objectType: string;
    keys: readonly string[];
  }[],
  definitions: ReadonlyMap<string, ReadonlyMap<string, FieldDefinition>>,
  judge: { unknown: boolean },
): void {
  for (const { flag, objectType, keys } of flags) {
    const defs = definitions.get(objectType);
    if (!defs) continue;
    for (const key of keys) {
      const def = defs.get(key);
      if (def ? !isReadOnlyField(def) : !judge.unknown) continue;
      if (def)
        throw new UsageError(
          `${flag} ${key}: the ${objectType} field "${key}" is read-only`,
          'the service maintains it: leave it out',
          'invalid_field',
        );
      const near = nearest(key, defs, true);
      throw new UsageError(
        `${flag} ${quoteInput(key)}: no ${objectType} field has this key${near ? ` (nearest: ${near})` : ''}`,
        `a field is named by its key, as \`cnv fields list --object-type ${objectType.toLowerCase()}\` lists them`,
        'unknown_field',
      );
    }
  }
}

/**
 * --set NAME sends a body member the spec names but does not spell: a NAME that is a field's
 * key or label, or close to one, is a field meant for its own flag (`--set ctiy=Oslo` would be
 * a member the API ignores), refused naming that field and flag.
 */
export function checkSetNames(
  names: readonly string[],
  fieldFlags: ReadonlyArray<{ flag: string; defs: ReadonlyMap<string, FieldDefinition> | undefined }>,
): void {
  for (const name of names) {
    for (const { flag, defs } of fieldFlags) {
      if (!defs) continue;
      const near = nearest(name, defs);
      if (near === undefined) continue;
      const exact = [...defs.values()].some(
        (d) => columnForm(d.key) === columnForm(name) || columnForm(d.label) === columnForm(name),
      );
      throw new UsageError(
        `--set ${quoteInput(name)}: ${exact ? 'names' : 'is close to'} the field ${near}: fields go with ${flag} KEY=VALUE`,
        "--set is for body members the spec names but does not spell; one that is like a field's name " +
          'is sent with `cnv api POST /v2/contacts -F NAME=VALUE`',
        'unknown_field',
      );
    }
  }
}
