import { closingQuote, oneLine } from '../lib/json-scan.js';
import { UNRESOLVED } from './schemas.js';

/**
 * A member name of the records: how it is written after another (`,"city":`), whether the catalog
 * deselects it, the last row that wrote it.
 */
interface Slot {
  out: string;
  excluded: boolean;
  stamp: number;
}

/**
 * A label of `fields` (its JSON text, quotes included): the slot it fills (none: it goes to
 * unresolvedFields), the last row that named it.
 */
interface Label {
  quoted: string;
  slot: Slot | undefined;
  stamp: number;
}

/**
 * What leads to a value of `fields` in the rows' text (`,"City":`, spaces as the server puts
 * them), where its label's quotes are in it, and its label.
 */
interface Step {
  lead: string;
  open: number;
  close: number;
  label: Label;
}

/** Names kept before the caches start over: a server naming new fields row after row must not grow them without bound. */
const MAX_NAMES = 12_000;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Where the scalar value at `v` ends (a string, number or literal), or -1 (an object or array: not read here). */
function scalarEnd(s: string, v: number): number {
  const c = s.charCodeAt(v);
  if (c === 0x22) {
    let j = s.indexOf('"', v + 1);
    if (j > 0 && s.charCodeAt(j - 1) === 0x5c) j = closingQuote(s, v + 1);
    return j < 0 ? -1 : j + 1;
  }
  if (c === 0x7b || c === 0x5b) return -1;
  let e = v;
  for (let d = c; e < s.length && d !== 0x2c && d !== 0x7d && !isSpace(d); d = s.charCodeAt(++e));
  return e === v ? -1 : e;
}

/**
 * A contact row's RECORD text made from the row's own text, for rows shaped as the API sends
 * them (`fields` their last member): the members before `fields` copied as one piece, each value
 * of `fields` copied after its property's name, the ones no definition names gathered in
 * `unresolvedFields`. Nothing is parsed again nor stringified, so every digit stays as sent.
 * It replaced ContactFields.record plus JSON.stringify for such rows: a RECORD line costs ~0.7
 * µs instead of ~2.7 (the row's text as it is: ~0.14; 100,000 emulator rows in-process,
 * docs/performance.md). What leads to each value (`,"City":`) is compared with what led to it
 * in the row before (`knownFields`: by its quotes only, when the labels are the same), no lookup.
 * `write` declines (undefined) every row it cannot prove plain (another member than the last
 * named `fields`, a member deselected or named as a property, a backslash before `fields`, a
 * label twice, a nested value in `fields`, a label JSON.parse lists first such as "2024"):
 * ContactFields.record writes those. The record is that one's, read as JSON reads it: its
 * properties in the order JSON.parse gives the labels (test/unit/tap-record-text-fuzz.test.ts
 * holds every generated row to that).
 */
export class RecordText {
  private readonly slots = new Map<string, Slot>();
  private readonly labels = new Map<string, Label>();
  private readonly steps = new Map<string, Step>();
  private seq: Step[] = [];
  private propertyOf: ReadonlyMap<string, string> = new Map();
  private properties = new Set<string>();
  /** The member names (JSON.parse's order) of the last row judged, and the verdict. */
  private head: string[] = [];
  private headPlain = false;
  private headUnresolved = false;
  private rows = 0;
  /** The labels of the last row read step by step (JSON.parse's order) and its steps: see `knownFields`. */
  private known: { labels: string[]; steps: Step[] } | undefined;
  /** What `fields` and `knownFields` read: the properties (each after a comma), unresolvedFields' members, past the `}`. */
  private out = '';
  private unresolved = '';
  private end = 0;

  /** `excluded`: the properties the catalog deselects. */
  constructor(private readonly excluded: ReadonlySet<string>) {}

  /** The definitions (each label to its property), at the start and whenever read again. */
  resolve(propertyOf: ReadonlyMap<string, string>): void {
    this.propertyOf = propertyOf;
    this.properties = new Set(propertyOf.values());
    this.labels.clear();
    this.steps.clear();
    this.seq = [];
    this.head = [];
    this.known = undefined;
  }

  /** The record's JSON text (on one line), or undefined for a row the general path writes. */
  write(row: Record<string, unknown>, text: string): string | undefined {
    if (this.labels.size + this.steps.size > MAX_NAMES) this.resolve(this.propertyOf);
    // The first `ields"` is the one of the row's `"fields"` (its last member, checked below): no other is copied with the head.
    const key = text.indexOf('ields"') - 2;
    const comma = skipBack(text, key - 1);
    // No escape in the row at all: its quotes are all where strings start and end (knownFields).
    const slash = text.indexOf('\\');
    if (text.charCodeAt(key) !== 0x22 || text.charCodeAt(comma) !== 0x2c || !this.plainHead(row, slash, comma))
      return undefined;
    const colon = skipSpace(text, key + 8);
    const open = skipSpace(text, colon + 1);
    if (text.charCodeAt(colon) !== 0x3a || text.charCodeAt(open) !== 0x7b) return undefined;
    if (slash >= 0 || !this.knownFields(row, text, open + 1, ++this.rows)) {
      if (!this.fields(text, open + 1, ++this.rows)) return undefined;
      if (slash < 0) this.learn(row);
    }
    // Then the row's `}` and nothing: the `fields` read is the row's own member, not one nested deeper.
    const close = skipSpace(text, this.end);
    if (text.charCodeAt(close) !== 0x7d || skipSpace(text, close + 1) !== text.length) return undefined;
    let out = text.slice(0, comma) + this.out;
    if (this.unresolved !== '') {
      if (this.headUnresolved) return undefined;
      const slot = this.slot(UNRESOLVED);
      if (!slot.excluded) out += `${slot.out}{${this.unresolved}}`;
    }
    out += '}';
    return text.indexOf('\n') < 0 && text.indexOf('\r') < 0 ? out : oneLine(out);
  }

  /** Whether the members before `fields` (up to `comma`) are written as the row writes them. */
  private plainHead(row: Record<string, unknown>, slash: number, comma: number): boolean {
    // No `fields` spelled with an escape before it either.
    if (slash >= 0 && slash < comma) return false;
    let k = 0;
    for (const name in row) if (name !== this.head[k++]) return this.judgeHead(row);
    return k === this.head.length ? this.headPlain : this.judgeHead(row);
  }

  /** The verdict on a row's member names: none deselected nor named as a field's property. */
  private judgeHead(row: Record<string, unknown>): boolean {
    this.head = Object.keys(row);
    this.headUnresolved = Object.hasOwn(row, UNRESOLVED);
    this.headPlain = this.head.every(
      (name) => name === 'fields' || (!this.excluded.has(name) && !this.properties.has(name)),
    );
    return this.headPlain;
  }

  /** The members of `fields` from `i` (past its `{`): as properties (each after a comma) and as unresolvedFields' members. */
  private fields(text: string, i: number, stamp: number): boolean {
    this.out = this.unresolved = '';
    for (let k = 0; ; k++) {
      if (text.charCodeAt(skipSpace(text, i)) === 0x7d) {
        this.end = skipSpace(text, i) + 1;
        this.seq.length = k;
        return true;
      }
      let step: Step | undefined = this.seq[k];
      // (A space after the lead: this row spaces its members otherwise.)
      if (step === undefined || !text.startsWith(step.lead, i) || isSpace(text.charCodeAt(i + step.lead.length)))
        step = this.step(text, i, k);
      if (step === undefined) return false;
      const v = i + step.lead.length;
      const e = scalarEnd(text, v);
      // A label twice: JSON keeps the last; the general path does.
      if (e < 0 || step.label.stamp === stamp) return false;
      this.put(step.label, text.slice(v, e), stamp);
      i = e;
    }
  }

  /**
   * `fields` read faster when the row's labels (as JSON.parse read them) are those of the last
   * row read step by step, in that order: each lead is checked by its quotes and the characters
   * outside them. In a row with no escape (`write` checks), the first quote after a label's
   * opening one is its closing one, so a label as long as the cached one is that one; a row
   * naming a label twice has more members than labels, and is not at its `}` after them.
   */
  private knownFields(row: Record<string, unknown>, text: string, i: number, stamp: number): boolean {
    const known = this.known;
    const fields = row.fields;
    if (known === undefined || fields === null || typeof fields !== 'object') return false;
    let k = 0;
    for (const label in fields) if (label !== known.labels[k++]) return false;
    if (k !== known.labels.length) return false;
    this.out = this.unresolved = '';
    for (const { lead, open, close, label } of known.steps) {
      for (let j = 0; j <= open; j++) if (text.charCodeAt(i + j) !== lead.charCodeAt(j)) return false;
      if (text.indexOf('"', i + open + 1) !== i + close) return false;
      for (let j = close + 1; j < lead.length; j++) if (text.charCodeAt(i + j) !== lead.charCodeAt(j)) return false;
      const v = i + lead.length;
      const e = isSpace(text.charCodeAt(v)) ? -1 : scalarEnd(text, v);
      if (e < 0) return false;
      this.put(label, text.slice(v, e), stamp);
      i = e;
    }
    this.end = skipSpace(text, i) + 1;
    return text.charCodeAt(this.end - 1) === 0x7d;
  }

  /** After a row read step by step: its labels, when JSON.parse read them in the text's order (none integer-like). */
  private learn(row: Record<string, unknown>): void {
    const labels = Object.keys(row.fields as object);
    const same = labels.length === this.seq.length && labels.every((l, k) => this.seq[k].label.quoted === `"${l}"`);
    this.known = same ? { labels, steps: [...this.seq] } : undefined;
  }

  /** A value of `fields` under its label's property, or in unresolvedFields when it has none or it is taken. */
  private put(label: Label, value: string, stamp: number): void {
    label.stamp = stamp;
    const slot = label.slot;
    if (slot !== undefined && slot.stamp !== stamp) {
      slot.stamp = stamp;
      if (!slot.excluded) this.out += slot.out + value;
    } else this.unresolved += `${this.unresolved === '' ? '' : ','}${label.quoted}:${value}`;
  }

  /** Reads what leads to the `k`th value of `fields` from `i` (a comma first but for the first), or undefined. */
  private step(text: string, i: number, k: number): Step | undefined {
    let j = skipSpace(text, i);
    if (k > 0) {
      if (text.charCodeAt(j) !== 0x2c) return undefined;
      j = skipSpace(text, j + 1);
    }
    const close = text.charCodeAt(j) === 0x22 ? closingQuote(text, j + 1) : -1;
    const colon = skipSpace(text, close + 1);
    if (close < 0 || text.charCodeAt(colon) !== 0x3a) return undefined;
    const quoted = text.slice(j, close + 1);
    // A label with an escape has other spellings: the general path compares labels as JSON reads them.
    if (quoted.indexOf('\\') >= 0) return undefined;
    // A label JSON.parse puts first (an array index, "2024"): the record's properties would not be
    // in its order, and rows alike could list such labels in another order than their text.
    if (isArrayIndex(quoted)) return undefined;
    const lead = text.slice(i, skipSpace(text, colon + 1));
    let step = this.steps.get(lead);
    if (step === undefined) {
      step = { lead, open: j - i, close: close - i, label: this.label(quoted) };
      this.steps.set(lead, step);
    }
    this.seq[k] = step;
    return step;
  }

  private label(quoted: string): Label {
    let label = this.labels.get(quoted);
    if (label === undefined) {
      const property = this.propertyOf.get(quoted.slice(1, -1));
      label = { quoted, slot: property === undefined ? undefined : this.slot(property), stamp: 0 };
      this.labels.set(quoted, label);
    }
    return label;
  }

  private slot(name: string): Slot {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = { out: `,${JSON.stringify(name)}:`, excluded: this.excluded.has(name), stamp: 0 };
      this.slots.set(name, slot);
    }
    return slot;
  }
}

/** Whether a quoted label is an array index ("0" to "4294967294"), a name JSON.parse lists before the others. */
function isArrayIndex(quoted: string): boolean {
  const c = quoted.charCodeAt(1);
  if (c < 0x30 || c > 0x39 || !/^"(0|[1-9]\d{0,9})"$/.test(quoted)) return false;
  return Number(quoted.slice(1, -1)) <= 4294967294;
}

/** The last index at or before `i` that is not JSON whitespace. */
function skipBack(s: string, i: number): number {
  while (i >= 0 && isSpace(s.charCodeAt(i))) i--;
  return i;
}
