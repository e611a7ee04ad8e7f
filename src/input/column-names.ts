import { labelForm } from '../endpoints/field-names.js';

/**
 * How a CSV column or a JSON key names one of the API's body keys: in any case, with spaces,
 * `-` and `_` ignored (`Subscription Status`, `subscription_status`), and for the identifiers
 * the common spellings of other tools (Mailchimp's `Email Address`, `E-mail`, `Contact ID`):
 * `email_address`, `e-mail`, `User ID`, `user_id`, `contact_id` all match by that rule.
 * The list is in docs/batches.md ("Column names"); keep the two in step.
 */
const COLUMN_ALIASES: Readonly<Record<string, readonly string[]>> = {
  email: ['Email Address', 'E-mail'],
  userId: ['User ID'],
  // `id` is the contact's column in cnv's own export; both hold a contact id only when a UUID.
  cnvContactId: ['Contact ID', 'id'],
};

/** The comparison form of a name: Unicode NFC (a decomposed `é` is the same letter), lower case, without spaces, `-` and `_`. */
export function columnForm(name: string): string {
  return labelForm(name)
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

/**
 * A function from column or key names to the body key among `known` they name (the name
 * itself when none). Built once per list of keys; names are cached (files repeat them).
 */
export function columnNamer(known: readonly string[]): (name: string) => string {
  const canonical = new Map<string, string>();
  for (const key of known) {
    canonical.set(columnForm(key), key);
    for (const alias of COLUMN_ALIASES[key] ?? []) canonical.set(columnForm(alias), key);
  }
  const names = new Map<string, string>();
  return (name) => {
    let n = names.get(name);
    if (n === undefined) {
      n = canonical.get(columnForm(name)) ?? name;
      if (names.size < 10_000) names.set(name, n);
    }
    return n;
  };
}

/** The accepted spellings of some keys, for messages: `email (or Email Address, E-mail) or userId (or User ID)`. */
export function spellingsOf(keys: readonly string[]): string {
  const each = keys.map((key) => (COLUMN_ALIASES[key] ? `${key} (or ${COLUMN_ALIASES[key].join(', ')})` : key));
  return each.length > 1 ? `${each.slice(0, -1).join(', ')} or ${each[each.length - 1]}` : each.join('');
}

/** Names by their form (columnForm), each name as often as it was added. */
export class FormIndex {
  private readonly byForm = new Map<string, string[]>();

  add(name: string): void {
    const form = columnForm(name);
    const names = this.byForm.get(form);
    if (names) names.push(name);
    else this.byForm.set(form, [name]);
  }

  named(form: string): readonly string[] {
    return this.byForm.get(form) ?? [];
  }
}
