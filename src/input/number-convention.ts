import { UsageError } from '../errors.js';
import { exactNumber } from '../json/exact-json.js';
import { stringifyJson, type ExactNumber } from '../lib/exact-number.js';

/** How a file writes its numbers: `1,234.5` (a decimal point) or `1.234,5` (a decimal comma). */
export type Convention = 'point' | 'comma';

type Num = number | ExactNumber;
/** A cell read, or why not (src/input/coerce.ts's shape). */
type Read = { ok: true; value: Num } | { ok: false; reason: string };

// A decimal point, commas grouping thousands: `1,234`, `1,234,567.5` (a group never starts a
// number with 0). The plain spellings (`42`, `1.5`, `2e3`) are exactNumber's.
const POINT_GROUPED = /^[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?$/;
// A decimal comma, dots grouping thousands: `3,5`, `-0,25`, `1.234,5`, `1.234.567`.
const COMMA_FORM = /^[+-]?([1-9]\d{0,2}(\.\d{3})+|\d+)(,\d+)?$/;
const FLAG: Record<Convention, string> = { point: '--decimal-point', comma: '--decimal-comma' };
const NAME: Record<Convention, string> = { point: 'a decimal point', comma: 'a decimal comma' };

/** What a text is as a number under each convention (undefined: not a number that way). */
function readingsOf(text: string): Record<Convention, Num | undefined> {
  const t = text.trim();
  // No separator: one reading both ways (most cells; read once, as each costs a parse).
  if (!t.includes(',') && !t.includes('.')) {
    const value = exactNumber(t);
    return { point: value, comma: value };
  }
  const point = POINT_GROUPED.test(t) ? exactNumber(t.replace(/,/g, '')) : t.includes(',') ? undefined : exactNumber(t);
  const comma = COMMA_FORM.test(t)
    ? exactNumber(t.replace(/\./g, '').replace(',', '.'))
    : /[.,]/.test(t)
      ? undefined
      : exactNumber(t);
  return { point, comma };
}

const shown = (v: Num) => stringifyJson(v);

/** Every reading of a text the two conventions give it, for messages: never one alone. */
function bothReadings(text: string, r: Record<Convention, Num | undefined>): string {
  const point = `as ${shown(r.point!)} with a decimal point${text.includes(',') ? ' (the comma groups thousands)' : ''}`;
  const comma = `as ${shown(r.comma!)} with a decimal comma${text.includes('.') ? ' (the dot groups thousands)' : ''}`;
  return `${JSON.stringify(text.trim())} reads ${point} or ${comma}`;
}

interface Seen {
  line: number;
  text: string;
}

/**
 * One number convention per file, for the cells of NUMBER fields. A cell that reads the same
 * either way (`42`, `2e3`) is read; one that reads one way only (`1.5`, `3,5`, `1.234,5`) is
 * evidence of the file's convention; one that reads two ways (`1,234`: 1234 or 1.234; `1.234`)
 * is read only once the convention is known: from a flag (--decimal-point, --decimal-comma), or
 * from the file's own evidence, found by a scan of the whole file before any request (a
 * regular file: `startScan`, the rows read through the same code, `endScan`). A file whose
 * cells show both conventions, or that holds such a cell and no evidence, is refused before
 * sending. stdin and FIFOs are read once (`streaming`): there such a cell is an invalid row
 * unless a flag decides, and the first evidence fixes the convention for the rest. Messages
 * name every reading, never one.
 */
export class NumberConvention {
  private decided: { convention: Convention; by: string } | undefined;
  private mode: 'scan' | 'read' | 'stream' = 'read';
  private line = 0;
  private readonly evidence: Partial<Record<Convention, Seen>> = {};
  private ambiguous: (Seen & { readings: string; point: Num; comma: Num }) | undefined;
  private ambiguousCount = 0;

  constructor(flag?: Convention) {
    if (flag) this.decided = { convention: flag, by: FLAG[flag] };
  }

  /** Whether a flag decided (then there is nothing to scan for). */
  get settled(): boolean {
    return this.decided !== undefined;
  }

  /** The line of the row whose cells are read next (for the evidence's place). */
  at(line: number): void {
    this.line = line;
  }

  /** stdin or a FIFO: no scan can come first. */
  streaming(): void {
    this.mode = 'stream';
  }

  startScan(): void {
    this.mode = 'scan';
  }

  /**
   * After the scan: throws (exit 2) for a file that shows both conventions, or that holds a cell
   * of two readings and nothing to tell which; else the convention is fixed and a note says how,
   * when the file's evidence decided (undefined when there is nothing worth saying).
   */
  endScan(file: string): string | undefined {
    this.mode = 'read';
    const { point, comma } = this.evidence;
    if (point && comma) {
      const pointCell = `line ${point.line} ${JSON.stringify(point.text)} with a decimal point`;
      const commaCell = `line ${comma.line} ${JSON.stringify(comma.text)} with a decimal comma`;
      throw new UsageError(
        `${file}: NUMBER cells are written two ways: ${pointCell}, ${commaCell}; a file has one convention`,
        "correct the cells written the other way, or name the file's convention with --decimal-point " +
          'or --decimal-comma (cells that do not fit it are then invalid rows)',
        'mixed_number_formats',
      );
    }
    const seen = point ? 'point' : comma ? 'comma' : undefined;
    const a = this.ambiguous;
    if (!seen) {
      if (!a) return undefined;
      const alike = this.ambiguousCount > 1 ? ` (${this.ambiguousCount} cells like it)` : '';
      throw new UsageError(
        `${file} line ${a.line}: the NUMBER cell ${a.readings}, and no other cell of the file tells which${alike}`,
        `--decimal-point reads it as ${shown(a.point)}, --decimal-comma as ${shown(a.comma)}`,
        'ambiguous_number',
      );
    }
    const proof = this.evidence[seen]!;
    this.decided = { convention: seen, by: `as line ${proof.line} (${JSON.stringify(proof.text)}) shows` };
    if (!a && seen === 'point') return undefined;
    const more =
      this.ambiguousCount > 1
        ? `, and ${this.ambiguousCount - 1} more ${this.ambiguousCount === 2 ? 'cell' : 'cells'} of two readings so`
        : '';
    const read = a
      ? `, so ${JSON.stringify(a.text)} (line ${a.line}) is read as ${shown(seen === 'point' ? a.point : a.comma)}${more}`
      : '';
    const writes = `${file} writes NUMBER cells with ${NAME[seen]} (line ${proof.line}: ${JSON.stringify(proof.text)})`;
    return `note: ${writes}${read}; --decimal-point or --decimal-comma names the convention instead`;
  }

  /** A NUMBER cell's text as a number, by the convention in force (or the evidence it gives). */
  read(text: string): Read {
    const r = readingsOf(text);
    const quoted = () => JSON.stringify(text);
    if (r.point === undefined && r.comma === undefined) return { ok: false, reason: `${quoted()} is not a number` };
    if (this.decided) {
      const value = r[this.decided.convention];
      if (value !== undefined) return { ok: true, value };
      const other: Convention = this.decided.convention === 'point' ? 'comma' : 'point';
      const there = r[other] === undefined ? '' : `; with ${NAME[other]} it is ${shown(r[other]!)}`;
      return {
        ok: false,
        reason: `${quoted()} is not a number written with ${NAME[this.decided.convention]} (${this.decided.by})${there}`,
      };
    }
    if (r.point !== undefined && r.comma !== undefined) {
      if (r.point === r.comma || shown(r.point) === shown(r.comma)) return { ok: true, value: r.point };
      return this.twoReadings(text, r);
    }
    const convention: Convention = r.point !== undefined ? 'point' : 'comma';
    this.evidence[convention] ??= { line: this.line, text: text.trim() };
    // Past the scan (or without one: stdin), the first evidence fixes the convention for the cells after it.
    if (this.mode !== 'scan')
      this.decided = { convention, by: `as line ${this.line} (${JSON.stringify(text.trim())}) shows` };
    return { ok: true, value: r[convention]! };
  }

  private twoReadings(text: string, r: Record<Convention, Num | undefined>): Read {
    const readings = bothReadings(text, r);
    if (this.mode === 'scan') {
      this.ambiguousCount++;
      this.ambiguous ??= { line: this.line, text: text.trim(), readings, point: r.point!, comma: r.comma! };
      return { ok: true, value: r.point! };
    }
    const why =
      this.mode === 'stream' ? 'the input is read once, so no other cell can tell which' : 'nothing tells which';
    return { ok: false, reason: `${readings}; ${why}: add --decimal-point or --decimal-comma` };
  }
}

/**
 * A number typed on the command line (`--field score=…`), where no file tells a convention: a
 * decimal point and no grouping, as JSON writes numbers; anything else is refused, naming every
 * reading it could have (`1,234`: 1234 or 1.234).
 */
export function plainNumber(text: string): Read {
  const value = exactNumber(text.trim());
  if (value !== undefined) return { ok: true, value };
  const r = readingsOf(text);
  const quoted = JSON.stringify(text);
  if (r.point !== undefined && r.comma !== undefined)
    return { ok: false, reason: `${bothReadings(text, r)}: write ${shown(r.point)} or ${shown(r.comma)}` };
  if (r.point !== undefined || r.comma !== undefined) {
    const [convention, value] = r.point !== undefined ? ['point' as const, r.point] : ['comma' as const, r.comma!];
    const reading = `with ${NAME[convention]} it is ${shown(value)}`;
    return { ok: false, reason: `${quoted} is not a number as JSON writes one; ${reading}: write ${shown(value)}` };
  }
  return { ok: false, reason: `${quoted} is not a number` };
}
