import { contentLanes, laneB } from './content-hash.js';
import { OpenTable } from './open-table.js';

/**
 * The 32-bit hash a member name of a row's `fields` is looked up by: FNV-1a over its UTF-16
 * units as sent (between its quotes), from the last to the first (src/lib/row-fields.ts reads
 * the object backwards).
 */
export function nameHash(units: ArrayLike<number>, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let k = to - 1; k >= from; k--) h = Math.imul(h ^ units[k], 0x01000193);
  return h >>> 0;
}

/**
 * The member names of a row's `fields` (the names the export gives the fields: their rule is
 * src/endpoints/field-names.ts, `exportedMemberNames`) by the hash of the text they are sent as
 * (JSON's escapes), each with its field's key as two hash lanes: what makes a member of `fields`
 * count as its key (src/lib/keyed-hash.ts). Built once per field list, placed in cnv's one
 * open-addressing table (open-table.ts). Matched by hash alone: two labels of one account alike
 * in 32 bits, and a version of a contact told from another by them alone, is not a chance worth a
 * comparison per member.
 */
export class MemberKeys {
  private readonly hashes: Uint32Array;
  /** Each entry's key, as two hash lanes. */
  readonly keyA: Int32Array;
  readonly keyB: Int32Array;
  private readonly table: OpenTable;
  private readonly byText = new Map<string, number>();

  /** `pairs`: [member name, key]; a name given twice keeps its first key. */
  constructor(pairs: Iterable<readonly [string, string]>) {
    const list: Array<[string, string]> = [];
    for (const [label, key] of pairs) if (!this.byText.has(label)) this.byText.set(label, list.push([label, key]) - 1);
    this.hashes = new Uint32Array(list.length);
    this.keyA = new Int32Array(list.length);
    this.keyB = new Int32Array(list.length);
    this.table = new OpenTable(list.length);
    list.forEach(([label, key], i) => {
      const sent = JSON.stringify(label).slice(1, -1);
      const units = Array.from({ length: sent.length }, (_, k) => sent.charCodeAt(k));
      this.hashes[i] = nameHash(units, 0, units.length);
      this.keyA[i] = contentLanes(`key:${key}`);
      this.keyB[i] = laneB;
      this.table.place(this.hashes[i], i);
    });
  }

  /** The entry of a name sent without escapes, by its `nameHash`; -1 for none. */
  find(hash: number): number {
    const { table } = this;
    for (let at = table.first(hash); ; at = table.next(at)) {
      const entry = table.entryAt(at);
      if (entry < 0 || this.hashes[entry] === hash) return entry;
    }
  }

  /** The entry of a name sent with escapes (its text decoded), or -1. */
  findText(text: string): number {
    return this.byText.get(text) ?? -1;
  }
}
