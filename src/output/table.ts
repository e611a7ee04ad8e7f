import stringWidth from 'string-width';
import { escapeControl } from '../lib/terminal-text.js';
import { cellText } from './format.js';

/** Space between two columns. */
const GAP = '  ';
/** A column is narrowed to this before any column goes narrower. */
const SOFT_FLOOR = 8;
/** Identifiers (id, cnvContactId, key) are what one copies from a table: cut last. */
const IDENTIFIER = /(^|\.)(id|key|[a-z]+Id)$/;

/** A wrapped column keeps at least this many columns while the others give way. */
const WRAP_FLOOR = 20;

/** A table cell as one line of terminal-safe text (line breaks shown as `\n`). */
function cellLine(value: unknown): string {
  return escapeControl(cellText(value));
}

// What a terminal draws as one character is a grapheme cluster (an emoji with its skin tone or
// ZWJ sequence, a letter with its combining marks); string-width gives each its columns: two for
// East Asian wide and emoji presentation, none for marks and joiners. test/unit/table.test.ts
// holds the cases the hand-written ranges cnv had before got wrong.
const segmenter = new Intl.Segmenter();

/** A text as terminal characters: each grapheme cluster with the columns it takes. */
function cells(text: string): Cell[] {
  // Printable ASCII, nearly every table's text, is one column a character.
  if (/^[\x20-\x7e]*$/.test(text)) return [...text].map((ch) => [ch, 1]);
  return Array.from(segmenter.segment(text), ({ segment }) => [segment, stringWidth(segment)]);
}

type Cell = [text: string, columns: number];

/** Columns a text takes on a terminal. */
export function displayWidth(text: string): number {
  return textWidth(cells(text));
}

function textWidth(chars: readonly Cell[]): number {
  let w = 0;
  for (const [, columns] of chars) w += columns;
  return w;
}

/** The text cut to `width` columns, ending in `…` when it was cut; a cluster is never split. */
function cut(chars: readonly Cell[], width: number): string {
  if (textWidth(chars) <= width) return chars.map(([ch]) => ch).join('');
  let out = '';
  let used = 0;
  for (const [ch, w] of chars) {
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/**
 * A borderless table: a heading line, then one line per row, columns two spaces apart. Fitted to
 * `width` by narrowing the widest columns first, headings kept whole while the values can give
 * way; a cut value ends in an ellipsis (a `wrap` column wraps at spaces instead). A column whose cut values would look alike
 * (keys and paths that share their start) is cut in the middle instead, keeping their ends.
 */
export function layoutTable(
  head: string[],
  rows: Array<Record<string, unknown>>,
  layout: {
    /** Terminal width to fit in; undefined: no limit (a table written to a file or pipe). */
    width?: number;
    /** Colours a cell's (already fitted) text; the padding stays outside the colour. */
    paint?: (column: string, value: unknown, text: string, row: Record<string, unknown>) => string;
    /** false: no heading line (a record's name/value lines). */
    heading?: boolean;
    /** Columns whose values wrap at spaces onto more lines instead of being cut (doctor's details): narrowed first. */
    wrap?: readonly string[];
  } = {},
): string {
  const texts = rows.map((row) => head.map((c) => cells(cellLine(row[c]))));
  const heads = head.map((h) => cells(escapeControl(h)));
  const headWidths = layout.heading === false ? head.map(() => 1) : heads.map(textWidth);
  const widths = head.map((_, i) => texts.reduce((w, t) => Math.max(w, textWidth(t[i])), headWidths[i]));
  const wraps = head.map((h) => layout.wrap?.includes(h) === true);
  if (layout.width !== undefined && layout.width > 0)
    fit(
      widths,
      layout.width,
      head.map((h) => IDENTIFIER.test(h)),
      headWidths,
      wraps,
    );
  const tails = widths.map((w, i) =>
    distinguishingTail(
      texts.map((t) => t[i]),
      w,
    ),
  );
  const line = (columns: Cell[][], row?: Record<string, unknown>) => {
    // A wrapped column's value is several lines: the row takes as many, the other columns blank below.
    const pieces = columns.map((chars, i) => (row && wraps[i] ? wrapped(chars, widths[i]) : [chars]));
    const height = Math.max(...pieces.map((p) => p.length));
    const lines: string[] = [];
    for (let at = 0; at < height; at++)
      lines.push(
        pieces
          .map((piece, i) => {
            const chars = piece[at] ?? [];
            const shown =
              row && tails[i] !== undefined && !wraps[i]
                ? middleCut(chars, widths[i], tails[i])
                : cut(chars, widths[i]);
            const painted = row && layout.paint && at === 0 ? layout.paint(head[i], row[head[i]], shown, row) : shown;
            return i === columns.length - 1
              ? painted
              : painted + ' '.repeat(Math.max(0, widths[i] - textWidth(cells(shown))));
          })
          .join(GAP)
          .trimEnd(),
      );
    return lines.join('\n');
  };
  const out = layout.heading === false ? [] : [line(heads)];
  rows.forEach((row, r) => out.push(line(texts[r], row)));
  return out.join('\n') + '\n';
}

/**
 * A value as lines of at most `width` columns, broken at spaces (the spaces at a break dropped);
 * a word longer than a line is broken where the line ends, as it must be.
 */
function wrapped(chars: readonly Cell[], width: number): Cell[][] {
  const lines: Cell[][] = [];
  let rest = chars.slice();
  while (textWidth(rest) > width) {
    let used = 0;
    let end = 0;
    while (end < rest.length && used + rest[end][1] <= width) used += rest[end++][1];
    // The last space that fits (or the one just after the line) ends the line.
    let brk = end < rest.length && rest[end][0] === ' ' ? end : -1;
    for (let i = end - 1; brk < 0 && i > 0; i--) if (rest[i][0] === ' ') brk = i;
    const stop = brk > 0 ? brk : end;
    lines.push(rest.slice(0, stop));
    let next = stop;
    while (next < rest.length && rest[next][0] === ' ') next++;
    rest = rest.slice(next);
  }
  lines.push(rest);
  return lines;
}

/**
 * For a column cut to `width` whose cut values would look alike (different values, the same
 * start): how many characters of their ends tell them apart, when that many fit beside a few
 * of their start. Undefined when cutting at the end keeps them apart, or nothing is cut.
 */
function distinguishingTail(values: readonly Cell[][], width: number): number | undefined {
  const cutOnes = values.filter((v) => textWidth(v) > width);
  if (cutOnes.length === 0 || width < 5) return undefined;
  const join = (chars: readonly Cell[]) => chars.map(([ch]) => ch).join('');
  const distinct = [...new Map(values.map((v) => [join(v), v])).values()];
  if (distinct.length < 2) return undefined;
  const alike = (shown: (v: Cell[]) => string) => new Set(distinct.map(shown)).size < distinct.length;
  if (!alike((v) => cut(v, width))) return undefined;
  // The shortest end that tells every value apart (at least half the room: the end of a key or
  // path is its file), leaving room for one character of the start.
  for (let tail = Math.floor((width - 1) / 2); tail <= width - 2; tail++) {
    if (!alike((v) => join(v.slice(Math.max(0, v.length - tail))))) return tail;
  }
  return width - 2;
}

/**
 * The text cut to `width` columns in its middle: its start, `…`, and its last `tail` characters
 * (fewer when they do not fit).
 */
function middleCut(chars: readonly Cell[], width: number, tail: number): string {
  if (textWidth(chars) <= width) return chars.map(([ch]) => ch).join('');
  let end = chars.length;
  let used = 0;
  while (end > 0 && chars.length - end < tail && used + chars[end - 1][1] <= width - 2) used += chars[--end][1];
  let out = '';
  for (const [ch, w] of chars) {
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return (
    out +
    '…' +
    chars
      .slice(end)
      .map(([ch]) => ch)
      .join('')
  );
}

/**
 * Narrows the widest column, one character at a time, until the line fits: first the wrapped
 * columns (down to WRAP_FLOOR), then the columns that are not identifiers, then the identifiers,
 * down to their heading (at least a few characters); then the same down to a few characters; at
 * last every column down to 1.
 */
function fit(widths: number[], width: number, identifiers: boolean[], headWidths: number[], wraps: boolean[]): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  const heading = (i: number) => Math.max(SOFT_FLOOR, headWidths[i]);
  const passes = [
    // Wrapped columns lose no text: they give way first, the others keep theirs whole.
    { floor: (i: number) => (wraps[i] ? Math.max(WRAP_FLOOR, headWidths[i]) : Infinity), ids: true },
    { floor: heading, ids: false },
    { floor: heading, ids: true },
    { floor: () => SOFT_FLOOR, ids: false },
    { floor: () => SOFT_FLOOR, ids: true },
    { floor: () => 1, ids: true },
  ];
  for (const { floor, ids } of passes) {
    while (total() > width) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (widths[i] > floor(i) && (ids || !identifiers[i]) && (widest < 0 || widths[i] > widths[widest])) widest = i;
      }
      if (widest < 0) break;
      widths[widest]--;
    }
  }
}
