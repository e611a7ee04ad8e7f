import { DATA_TYPES, type DataType } from '../../api/fields.js';
import { looseJson } from '../../lib/option-values.js';
import { coerceValue } from '../../records/coerce.js';
import type { DefinitionsByType } from '../../records/field-cache.js';

// `contacts upsert --file`: a CSV cell of `fields.KEY` / `companyFields.KEY` is typed by the
// field's definition, as `--field` is. A spreadsheet writes a zip code 10115 and a zip code
// 01067 alike; "JSON when it parses" alone would send the one as a number, the other as text.

const OBJECT_TYPE_OF: Record<string, string> = { fields: 'CONTACT', companyFields: 'COMPANY' };

/** The object types whose definitions the file's cells may need. */
export const FILE_FIELD_OBJECT_TYPES = ['CONTACT', 'COMPANY'] as const;

/** A cell that does not fit its field's type: the row is invalid (`invalid_field`) and never sent. */
export class CellMismatch {
  constructor(readonly message: string) {}
}

/**
 * The typer for rowBody's `nestedCell`: the cell coerced to its field's dataType; undefined
 * (the "JSON when it parses" rule) for a key the definitions do not list or a type this client
 * does not know. A JSON-quoted cell (`"12345"`, the way to keep digits as text without
 * definitions) counts as the string inside the quotes.
 */
export function fieldCellTyper(definitions: DefinitionsByType | undefined): ((parent: string, key: string, cell: string) => unknown) | undefined {
  if (!definitions) return undefined;
  return (parent, key, cell) => {
    const objectType = OBJECT_TYPE_OF[parent];
    const def = objectType ? definitions.get(objectType)?.get(key) : undefined;
    if (!def || !(DATA_TYPES as readonly string[]).includes(def.dataType)) return undefined;
    const dataType = def.dataType as DataType;
    const quoted = cell.length >= 2 && cell.trimStart().startsWith('"') && cell.trimEnd().endsWith('"');
    const coerced = coerceValue(quoted ? looseJson(cell) : cell, dataType);
    return coerced.ok ? coerced.value : new CellMismatch(`${parent}.${key}: field "${key}" (${dataType}): ${coerced.reason}`);
  };
}

/** The first cell of the body that did not fit its field, if any. */
export function cellMismatch(body: Record<string, unknown>): CellMismatch | undefined {
  for (const parent of Object.keys(OBJECT_TYPE_OF)) {
    const values = body[parent];
    if (typeof values !== 'object' || values === null) continue;
    for (const value of Object.values(values)) if (value instanceof CellMismatch) return value;
  }
  return undefined;
}
