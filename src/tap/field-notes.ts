import type { FieldDefinition } from '../endpoints/fields.js';
import { fieldKeys } from '../exporter/fields-by-key.js';
import { fieldProperty } from './schemas.js';

// What the contacts stream says of the account's CONTACT fields (docs/singer.md, "When the
// account's fields change"): on stderr, which Meltano logs.

/**
 * At the start of the stream: a label two fields share (its rows' member cannot say whose value
 * it is), and a field of the last run (its bookmark) gone from the account (its column frozen).
 */
export function noteFieldChanges(
  warn: (message: string) => void,
  defs: readonly FieldDefinition[],
  before: readonly string[] | undefined,
): void {
  noteSharedLabels(warn, defs);
  if (before !== undefined) noteDeletedFields(warn, defs, before);
}

/**
 * While the stream reads: the field list read after a contacts page is not the one it was read
 * under (the page is read again under the new one). Each relabel is said, and what the start of
 * a stream says of a new list: a field made, a label now shared, a field deleted.
 */
export function noteListChanged(
  say: { info: (message: string) => void; warn: (message: string) => void },
  before: readonly FieldDefinition[],
  now: readonly FieldDefinition[],
  relabelled: ReadonlyArray<{ key: string; from: string; to: string }>,
): void {
  const head =
    "note: the account's contact fields changed while the tap read a contacts page, read again under the new labels";
  for (const c of relabelled) {
    const change = `field ${c.key} relabelled ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`;
    say.info(`${head}: ${change}: its column ${fieldProperty(c.key)} is unchanged`);
  }
  noteNewFields(say.info, before, now);
  noteSharedLabels(say.warn, now, new Set(fieldKeys(before).shared.keys()));
  noteDeletedFields(
    say.warn,
    now,
    before.map((d) => d.key),
  );
}

/** Labels two fields share (but those of `known`, said before). */
function noteSharedLabels(
  warn: (message: string) => void,
  defs: readonly FieldDefinition[],
  known?: ReadonlySet<string>,
): void {
  for (const [label, keys] of fieldKeys(defs).shared) {
    if (known?.has(label)) continue;
    const named = keys.map((k) => `${k} (column ${fieldProperty(k)})`).join(' and ');
    warn(
      `contacts: fields ${named} share the label ${JSON.stringify(label)}: a row's member named so cannot say ` +
        `which field it is, so its value goes to unresolvedFields under that label and neither column gets it ` +
        `(a member the server names "${label} (${keys[0]})" still lands in its column); ` +
        `give each field its own label in the account`,
    );
  }
}

/** Fields of `before` (keys) the account no longer has. */
function noteDeletedFields(
  warn: (message: string) => void,
  defs: readonly FieldDefinition[],
  before: readonly string[],
): void {
  const now = new Set(defs.map((d) => d.key));
  for (const key of before)
    if (!now.has(key))
      warn(
        `contacts: field ${key} (column ${fieldProperty(key)}) is no longer in the account: its column in the ` +
          `warehouse is now frozen (no run writes it again: rows keep the values they had, new rows leave it empty); ` +
          `drop the column there if it is not wanted`,
      );
}

/** While the stream runs: fields made since it read the definitions (a new SCHEMA follows). */
export function noteNewFields(
  info: (message: string) => void,
  before: readonly FieldDefinition[],
  now: readonly FieldDefinition[],
): void {
  const known = new Set(before.map((d) => d.key));
  for (const def of now) {
    if (known.has(def.key)) continue;
    const field = `field ${def.key} (${JSON.stringify(def.label)})`;
    info(`contacts: ${field} was made while the run read: a new SCHEMA with column ${fieldProperty(def.key)}`);
  }
}
