import type { ExportRow, PageReceiver } from '../endpoints/exports.js';
import type { MemberKeys } from '../lib/member-keys.js';
import { ResponseShapeError } from '../errors.js';
import {
  hasRow,
  identityText,
  IdTable,
  joinIds,
  KEYED_MARK,
  TEXT_MARK,
  type Ids,
  type RowKey,
  type Skip,
} from './id-table.js';
import { keyedLaneB, keyedLanesAt } from '../lib/keyed-hash.js';
import { UnitBuffer } from '../lib/unit-buffer.js';
import { contactKey, eventKey, keyHash, textIdentityOf, versionOf } from './kinds.js';
import { giveRowTexts, takeRowTexts } from './row-texts.js';
import { BlockPool, PageBytes, type PageFormat } from './page-format.js';
import type { ExportKind } from '../endpoints/exports.js';

/** A page as received: its output bytes, and what deduplication found. */
export interface ReceivedPage {
  pieces: Buffer[];
  bytes: number;
  /** Rows the server sent, delivered before or not. */
  rows: number;
  /** Rows written (not delivered before). */
  fresh: number;
  /** Rows the server sent twice within this page (written once). */
  repeated: number;
  /**
   * Identities of the rows written, in order, in the form a state saves (kept as bytes, not
   * strings: see IdTable): made when the page is one whose identities are saved (its cursor is
   * the last, or stayed where it was), else absent.
   */
  freshIds?: IdTable;
  /**
   * Identities of the rows delivered before: saved ones as saved; those of the page before in the
   * form compared in memory, or (a page whose identities are saved) the form saved.
   */
  hits: Set<string>;
  /** Hits of identities saved in an earlier cnv's form -> the row's identity now. */
  renamed?: Map<string, string>;
  /** This page's rows but its repeats (written or delivered before), in memory: what the next page is compared with. */
  recent: Ids;
  /** Contacts: whether the page's rows were read through the field names (a saved identity made: `ReceiverInput.names`). */
  named: boolean;
  nextCursor: string | null;
  /**
   * Fresh rows held back unformatted (the format's `holds`): from the first row it held, every
   * fresh row after it too, in order. Absent when none was.
   */
  held?: Array<{ row: ExportRow; text: string }>;
  /** CSV: what this page's lines put in `_extra` (values, rows) and the names the run's lines used so far. */
  extra?: { values: number; rows: number; members: string[] };
  /** Hands the page's memory back for later pages: call once it is written and its ids read. */
  release(): void;
}

/** What a page is fetched with besides its format. */
interface ReceiverInput {
  kind: ExportKind;
  /** The cursor it is fetched from (null: the first page): a page whose next cursor is the same has its identities saved. */
  cursor: string | null;
  skip: Skip;
  pool: BlockPool;
  limit: number;
  label: string;
  /** Contacts: the field list the page is read under (a row's saved identity names its fields by key). */
  names?: MemberKeys;
}

/**
 * Drops the rows of `skip` and the repeats within the page, and formats the others as they
 * stream in: no page is held parsed. A page with more rows than `limit` breaks the contract
 * (the API clamps the page size): it stops the run before anything of it is written. A contact's
 * identity in the form saved (its fields named by key) is made only where it is needed: to
 * compare it with identities saved, and, at the page's end, for the rows of a page whose
 * identities are saved; the rest of the time it is the cheaper hash of its text.
 */
export function receiver(format: PageFormat, input: ReceiverInput): () => PageReceiver<ReceivedPage> {
  const { kind, limit, label } = input;
  return () => {
    const out = new PageBytes(input.pool);
    const ids = kind === 'contacts' ? new ContactIds(input) : new EventIds(input);
    let fresh = 0;
    let held: ReceivedPage['held'];
    // Pages are received one after another: what the format counts meanwhile is this page's.
    const extra0 = format.extra && { values: format.extra.values, rows: format.extra.rows };
    return {
      row(row, text) {
        if (ids.rows === limit) {
          throw new ResponseShapeError(
            `${label}: the server sent more than the ${limit} rows asked for in one page (off-contract); stopped before writing that page`,
          );
        }
        if (!ids.fresh(row, text)) return;
        fresh++;
        if (held || format.holds?.(row)) (held ??= []).push({ row, text });
        else out.add(format.line(row, text));
      },
      end: (nextCursor) => {
        const written = out.done();
        return {
          pieces: written.pieces,
          bytes: written.bytes,
          fresh,
          ...ids.end(nextCursor === null || nextCursor === input.cursor),
          nextCursor,
          release: written.release,
          held,
          ...(format.extra && extra0
            ? {
                extra: {
                  values: format.extra.values - extra0.values,
                  rows: format.extra.rows - extra0.rows,
                  members: [...format.extra.members],
                },
              }
            : {}),
        };
      },
    };
  };
}

/** What a page's identities end as. */
type PageIds = Pick<ReceivedPage, 'rows' | 'repeated' | 'hits' | 'renamed' | 'recent' | 'freshIds' | 'named'>;

/** An event's identity is its id: one form, saved and in memory alike. */
class EventIds {
  rows = 0;
  private repeated = 0;
  private readonly hits = new Set<string>();
  private readonly inPage: IdTable;
  private readonly key: RowKey = { head: '', tail: undefined, a: 0, b: 0, mark: KEYED_MARK, hash: 0 };

  constructor(private readonly input: ReceiverInput) {
    this.inPage = new IdTable(input.limit);
  }

  /** Whether the row is to be written (neither delivered before nor repeated). */
  fresh(row: ExportRow): boolean {
    this.rows++;
    const { saved, recent } = this.input.skip;
    const key = eventKey(row, this.key);
    if ((saved.size > 0 && hasRow(saved, key)) || (recent !== undefined && hasRow(recent, key)))
      this.hits.add(key.head);
    else if (this.inPage.addKey(key)) return true;
    else this.repeated++;
    return false;
  }

  end(): PageIds {
    const { rows, repeated, hits, inPage } = this;
    return { rows, repeated, hits, recent: joinIds(hits, inPage), freshIds: inPage, named: false };
  }
}

/** The keys a contact is compared by: the hash of its text (in memory), the keyed one (saved). */
const contactKeys = (): Record<'text' | 'keyed', RowKey> => ({
  text: { head: '', tail: undefined, a: 0, b: 0, mark: TEXT_MARK, hash: 0 },
  keyed: { head: '', tail: undefined, a: 0, b: 0, mark: KEYED_MARK, hash: 0 },
});

/** Where a row's text is hashed from when a page keeps no more (RowTexts' bound). */
const overflow = new UnitBuffer();

/**
 * A contact's identities: the hash of its text for what is compared in memory (the page, the
 * page before), its keyed identity for what is saved. The keyed one is made where it is needed:
 * for every row when identities saved are compared with (the page from a saved cursor), for a
 * row sent again from the page before, and at the end for the fresh rows of a page whose
 * identities are saved, from their texts kept meanwhile (RowTexts).
 */
class ContactIds {
  rows = 0;
  private repeated = 0;
  private readonly hits = new Set<string>();
  private renamed: Map<string, string> | undefined;
  /** Hits of the page before (their text form) -> their saved form, for a page whose identities are saved. */
  private again: Map<string, string> | undefined;
  /** The page's rows but repeats, by the hash of their text. */
  private readonly here: IdTable;
  /** Each fresh row: its entry in `here`, where its text is kept (`to` < 0: its keyed lanes made already, in a, b). */
  private readonly entry: Int32Array;
  private readonly from: Int32Array;
  private readonly to: Int32Array;
  private readonly lanes: Int32Array;
  private count = 0;
  private readonly texts = takeRowTexts();
  private readonly keys = contactKeys();
  /** Whether identities saved are compared with: the keyed identity of every row of a contact they name is made. */
  private readonly withSaved: boolean;

  constructor(private readonly input: ReceiverInput) {
    const { skip, limit } = input;
    this.here = new IdTable(limit, TEXT_MARK);
    this.entry = new Int32Array(limit);
    this.from = new Int32Array(limit);
    this.to = new Int32Array(limit);
    this.lanes = new Int32Array(limit * 2);
    this.withSaved = skip.saved.size > 0 || skip.legacy !== undefined || skip.texts !== undefined;
  }

  /** Whether the row is to be written (neither delivered before nor repeated). */
  fresh(row: ExportRow, text: string): boolean {
    this.rows++;
    const kept = this.texts.add(text);
    if (kept < 0) overflow.put(text, 0);
    const buffer = kept >= 0 ? this.texts.buffer : overflow;
    const from = Math.max(kept, 0);
    const to = from + text.length;
    const { keys, here, input } = this;
    contactKey(row, buffer, from, to, keys.text);
    let keyed: RowKey | undefined;
    // Compared with the saved identities only when one names this contact.
    if (this.withSaved && input.skip.heads?.has(String(row.id))) {
      keyed = contactKey(row, buffer, from, to, keys.keyed, input.names);
      if (this.savedHit(row, text, keyed)) {
        here.addKey(keys.text);
        this.texts.drop(kept);
        return false;
      }
    }
    const { recent } = input.skip;
    if (recent !== undefined && hasRow(recent, keys.text)) {
      // Sent again from the page before: said in the form of the page's identities.
      const memory = identityText(keys.text);
      this.hits.add(memory);
      keyed ??= contactKey(row, buffer, from, to, keys.keyed, input.names);
      (this.again ??= new Map()).set(memory, identityText(keyed));
      here.addKey(keys.text);
    } else if (!here.addKey(keys.text)) this.repeated++;
    else {
      if (kept < 0) keyed ??= contactKey(row, buffer, from, to, keys.keyed, input.names);
      this.added(kept, to, keyed);
      return true;
    }
    this.texts.drop(kept);
    return false;
  }

  /** Whether the row is among the identities saved (in the form of now, or of an earlier cnv: renamed to it). */
  private savedHit(row: ExportRow, text: string, keyed: RowKey): boolean {
    const { saved, legacy, texts } = this.input.skip;
    if (saved.size > 0 && hasRow(saved, keyed)) {
      this.hits.add(identityText(keyed));
      return true;
    }
    let earlier = '';
    if (!(legacy?.has((earlier = versionOf(row))) || texts?.has((earlier = textIdentityOf(row, text))))) return false;
    this.hits.add(earlier);
    (this.renamed ??= new Map()).set(earlier, identityText(keyed));
    return true;
  }

  /** A fresh row: its entry, and its keyed lanes (made already) or where its text is kept to make them if need be. */
  private added(kept: number, to: number, keyed: RowKey | undefined): void {
    const i = this.count++;
    this.entry[i] = this.here.size - 1;
    if (keyed === undefined) {
      this.from[i] = kept;
      this.to[i] = to;
      return;
    }
    this.to[i] = -1;
    this.lanes[2 * i] = keyed.a;
    this.lanes[2 * i + 1] = keyed.b;
    this.texts.drop(kept);
  }

  /** `saves`: the page's identities are saved (its cursor is the last, or stayed): in the form saved. */
  end(saves: boolean): PageIds {
    const { rows, repeated, hits, renamed, here } = this;
    const named = saves || this.withSaved || this.again !== undefined;
    const page: PageIds = { rows, repeated, hits, ...(renamed ? { renamed } : {}), recent: here, named };
    if (saves) {
      page.freshIds = this.savedIds();
      for (const [memory, saved] of this.again ?? []) {
        hits.delete(memory);
        hits.add(saved);
      }
    }
    giveRowTexts(this.texts);
    return page;
  }

  /** The fresh rows' keyed identities, in order (made from their texts where not made already). */
  private savedIds(): IdTable {
    const ids = new IdTable(this.count, KEYED_MARK);
    const key = { a: 0, b: 0, hash: 0 };
    for (let i = 0; i < this.count; i++) {
      if (this.to[i] < 0) {
        key.a = this.lanes[2 * i];
        key.b = this.lanes[2 * i + 1];
      } else {
        key.a = keyedLanesAt(this.texts.buffer, this.from[i], this.to[i], this.input.names);
        key.b = keyedLaneB;
      }
      key.hash = keyHash(key.a, key.b);
      ids.addVersionOf(this.here, this.entry[i], key);
    }
    return ids;
  }
}
