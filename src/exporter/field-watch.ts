import { TransientError } from '../errors.js';
import type { MemberKeys } from '../lib/member-keys.js';
import type { LabelledField } from './csv-layout.js';
import { memberKeysOf, labelChanges, labelsByKey, type FieldChanges } from './field-binding.js';

/** Reads of one page in a row under field lists that kept changing, before the run gives up (exit 7). */
export const MAX_FIELD_CHANGES = 5;

/**
 * The CONTACT field list a contacts export reads its pages under. The export keys a row's
 * `fields` by label, and a label may change while a run reads (someone in the dashboard): a page
 * is trusted only when the list read before it and the list read after it agree. The list read
 * after a page is the one before the next, so the cost is one GET /v2/fields per page (and one
 * before the first); a page whose lists differ is read again under the new one.
 */
export class FieldWatch<F extends LabelledField = LabelledField> {
  private list: readonly F[];
  private print: string;
  /** The labels of the list in force as a row's identity reads them (src/lib/keyed-hash.ts). */
  names: MemberKeys;

  constructor(
    private readonly read: () => Promise<readonly F[]>,
    fields: readonly F[],
  ) {
    this.list = fields;
    this.print = fingerprint(fields);
    this.names = memberKeysOf(fields);
  }

  /** The list in force: the one the next page is read under. */
  get fields(): readonly F[] {
    return this.list;
  }

  /**
   * Reads the list again after a page: undefined when it is the one the page was read under (the
   * page is trusted), else what changed (by key; empty when only their order did), the new list
   * now in force for the page read again.
   */
  async changed(): Promise<FieldChanges | undefined> {
    const now = await this.read();
    const print = fingerprint(now);
    if (print === this.print) return undefined;
    const changes = labelChanges(labelsByKey(this.list), now);
    this.list = now;
    this.print = print;
    this.names = memberKeysOf(now);
    return changes;
  }
}

/** Keys and labels in the list's order (the order tells which of two fields sharing a label the export shows under it). */
function fingerprint(fields: readonly LabelledField[]): string {
  return JSON.stringify(fields.map((f) => [f.key, f.label]));
}

/** A page read again MAX_FIELD_CHANGES times, its field list changed each time: exit 7, the next run goes on. */
export function fieldsKeptChanging(label: string): TransientError {
  return new TransientError(
    `${label}: the account's contact fields changed during each of ${MAX_FIELD_CHANGES} reads of one page; ` +
      'stopped (everything before is committed)',
    { code: 'fields_changing', hint: 'run again once the fields are no longer being changed' },
  );
}
