import { escapeControl } from '../lib/terminal-text.js';
import { cellText } from './format.js';

/** Space between two columns. */
const GAP = '  ';
/** A column is narrowed to this before any column goes narrower. */
const SOFT_FLOOR = 8;
/** Identifiers (id, cnvContactId, key) are what one copies from a table: cut last. */
const IDENTIFIER = /(^|\.)(id|key|[a-z]+Id)$/;

export interface TableLayout {
  /** Terminal width to fit in; undefined: no limit (a table written to a file or pipe). */
  width?: number;
  /** Colours a cell's (already fitted) text; the padding stays outside the colour. */
  paint?: (column: string, value: unknown, text: string, row: Record<string, unknown>) => string;
  /** false: no heading line (a record's name/value lines). */
  heading?: boolean;
}

/** A table cell as one line of terminal-safe text (line breaks shown as `\n`). */
export function cellLine(value: unknown): string {
  return escapeControl(cellText(value));
}

// East Asian wide and fullwidth characters and emoji take two terminal columns; combining marks
// and zero-width joiners none. Close enough for a table not to overflow into a wrap.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
// eslint-disable-next-line no-misleading-character-class -- one code point is tested at a time, variation selectors alone
const ZERO = /[\u0300-\u036f\u200b-\u200d\ufe00-\ufe0f]/u;

function charWidth(ch: string): number {
  return ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
}

/** Columns a text takes on a terminal. */
export function textWidth(chars: string[]): number {
  let w = 0;
  for (const ch of chars) w += charWidth(ch);
  return w;
}

/** The text cut to `width` columns, ending in `…` when it was cut. */
function cut(chars: string[], width: number): string {
  if (textWidth(chars) <= width) return chars.join('');
  let out = '';
  let used = 0;
  for (const ch of chars) {
    const w = charWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/**
 * A borderless table: a heading line, then one line per row, columns two spaces apart. Fitted to
 * `width` by narrowing the widest columns first; a cut value ends in an ellipsis, never wraps.
 */
export function layoutTable(head: string[], rows: Array<Record<string, unknown>>, layout: TableLayout = {}): string {
  const texts = rows.map((row) => head.map((c) => [...cellLine(row[c])]));
  const heads = head.map((h) => [...escapeControl(h)]);
  const widths = head.map((_, i) => texts.reduce((w, t) => Math.max(w, textWidth(t[i])), layout.heading === false ? 1 : textWidth(heads[i])));
  if (layout.width !== undefined && layout.width > 0) fit(widths, layout.width, head.map((h) => IDENTIFIER.test(h)));
  const line = (cells: string[][], row?: Record<string, unknown>) =>
    cells
      .map((chars, i) => {
        const shown = cut(chars, widths[i]);
        const painted = row && layout.paint ? layout.paint(head[i], row[head[i]], shown, row) : shown;
        return i === cells.length - 1 ? painted : painted + ' '.repeat(Math.max(0, widths[i] - textWidth([...shown])));
      })
      .join(GAP)
      .trimEnd();
  const out = layout.heading === false ? [] : [line(heads)];
  rows.forEach((row, r) => out.push(line(texts[r], row)));
  return out.join('\n') + '\n';
}

/**
 * Narrows the widest column, one character at a time, until the line fits: first the columns
 * that are not identifiers down to a few characters, then every column, at last down to 1.
 */
function fit(widths: number[], width: number, identifiers: boolean[]): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  const passes = [{ floor: SOFT_FLOOR, ids: false }, { floor: SOFT_FLOOR, ids: true }, { floor: 1, ids: true }];
  for (const { floor, ids } of passes) {
    while (total() > width) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (widths[i] > floor && (ids || !identifiers[i]) && (widest < 0 || widths[i] > widths[widest])) widest = i;
      }
      if (widest < 0) break;
      widths[widest]--;
    }
  }
}
