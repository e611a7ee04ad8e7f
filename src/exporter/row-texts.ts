import { UnitBuffer } from '../lib/unit-buffer.js';

/** Units a page keeps of its rows' texts at most (32 MB); a row past it has its saved form of identity made at once. */
const MAX_UNITS = 16 * 1024 * 1024;

/**
 * The texts of a page's contact rows as UTF-16 units (outside the JS heap) while the page is
 * read: each row's text hashed where it was copied to, and, when the page turns out to be the one
 * a state saves the identities of (its last page, or one whose cursor stayed), its fresh rows'
 * identities in the form saved (src/lib/keyed-hash.ts) made from them at its end. Reused from
 * page to page (`takeRowTexts`).
 */
export class RowTexts {
  readonly buffer = new UnitBuffer(64 * 1024);
  private used = 0;

  /** Copies a row's text at the next even unit: where it starts, or -1 past MAX_UNITS (not kept). */
  add(text: string): number {
    const at = (this.used + 1) & ~1;
    if (at + text.length > MAX_UNITS) return -1;
    this.buffer.put(text, at);
    this.used = at + text.length;
    return at;
  }

  /** Gives back the last row added (at `at`): the page keeps only what it may need. */
  drop(at: number): void {
    if (at >= 0) this.used = at;
  }

  reset(): void {
    this.used = 0;
  }
}

const free: RowTexts[] = [];

/** A RowTexts to fill (one given back before, or a new one). */
export function takeRowTexts(): RowTexts {
  return free.pop() ?? new RowTexts();
}

/** Hands a RowTexts back once its page has ended. */
export function giveRowTexts(texts: RowTexts): void {
  texts.reset();
  if (free.length < 4) free.push(texts);
}
