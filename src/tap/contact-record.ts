import type { FieldDefinition } from '../endpoints/fields.js';
import { fieldKeys } from '../exporter/fields-by-key.js';
import { parseJson, mayHoldInexactNumber } from '../json/exact-json.js';
import { stringifyJson } from '../lib/exact-number.js';
import { RecordText } from './record-text.js';
import { contactsSchema, fieldProperty, UNRESOLVED, type JsonSchema } from './schemas.js';

/**
 * The CONTACT field definitions a run holds (read at its start, again when a row names a field
 * it does not know): each member of a row's `fields` (a label) to its record property (the key).
 */
export class ContactFields {
  private propertyOf = new Map<string, string>();
  /** Labels the definitions were read again for and still did not name (shared labels): not a reason to read them again. */
  private unexplained = new Set<string>();
  private readonly text: RecordText;
  /** The labels of the last row found with none unknown, in order: rows alike (most) need no lookup. */
  private known: string[] = [];
  schema: JsonSchema = {};

  /** `excluded`: properties the catalog deselects, left out of the schema and every record. */
  constructor(
    defs: readonly FieldDefinition[],
    private readonly excluded: ReadonlySet<string> = new Set(),
  ) {
    this.text = new RecordText(excluded);
    this.use(defs);
  }

  /** Takes a new list of definitions; true when the schema changed (a new SCHEMA message is due). */
  use(defs: readonly FieldDefinition[]): boolean {
    const keys = fieldKeys(defs);
    this.propertyOf = new Map([...keys.keyOf].map(([label, key]) => [label, fieldProperty(key)]));
    this.text.resolve(this.propertyOf);
    this.known = [];
    const schema = contactsSchema(defs);
    for (const name of this.excluded) delete (schema.properties as Record<string, unknown>)[name];
    const changed = JSON.stringify(schema) !== JSON.stringify(this.schema);
    this.schema = schema;
    return changed;
  }

  /** Marks these labels as read again for: rows with them go to unresolvedFields without another read. */
  settle(labels: Iterable<string>): void {
    for (const label of labels) if (!this.propertyOf.has(label)) this.unexplained.add(label);
  }

  /** A label of a row's `fields` the run has never resolved nor read the definitions again for. */
  unknownLabel(row: Record<string, unknown>): string | undefined {
    const fields = row.fields;
    if (fields === null || typeof fields !== 'object') return undefined;
    let k = 0;
    for (const label in fields) if (label !== this.known[k++]) return this.lookUp(fields);
    return k === this.known.length ? undefined : this.lookUp(fields);
  }

  private lookUp(fields: object): string | undefined {
    for (const label in fields) if (!this.propertyOf.has(label) && !this.unexplained.has(label)) return label;
    this.known = Object.keys(fields);
    return undefined;
  }

  /** The record of a row as JSON text: made from the row's text (record-text.ts), or by `record` where that declines. */
  recordText(row: Record<string, unknown>, text: string): string {
    return this.text.write(row, text) ?? stringifyJson(this.record(row, text));
  }

  /**
   * The record of a row: its members as sent, `fields` spread as properties named by key, and the
   * members no definition names kept by label in `unresolvedFields`. Numbers keep every digit.
   */
  record(row: Record<string, unknown>, text: string): Record<string, unknown> {
    const exact = mayHoldInexactNumber(text) ? (parseJson(text) as Record<string, unknown>) : row;
    // No prototype: a member named "__proto__" (a label, a key) is a member like any other, not dropped.
    const out: Record<string, unknown> = Object.create(null);
    let unresolved: Record<string, unknown> | undefined;
    for (const member in exact) {
      const value = exact[member];
      if (member !== 'fields' || value === null || typeof value !== 'object' || Array.isArray(value)) {
        out[member] = value;
        continue;
      }
      for (const label in value) {
        const property = this.propertyOf.get(label);
        const v = (value as Record<string, unknown>)[label];
        if (property !== undefined && !(property in out)) out[property] = v;
        else (unresolved ??= Object.create(null) as Record<string, unknown>)[label] = v;
      }
    }
    if (unresolved) out[UNRESOLVED] = unresolved;
    for (const name of this.excluded) delete out[name];
    return out;
  }
}
