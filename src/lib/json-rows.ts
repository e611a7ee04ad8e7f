import { closingQuote, scanJson, TOO_DEEP, type ScanState } from './json-scan.js';
import { bytesText, Utf8Bound, utf8Length } from './utf8-bound.js';

/** Thrown for text that is not JSON (the caller words it as an unexpected response). */
export class JsonSyntaxError extends Error {}

/** Thrown when one row, or the document around the rows, is longer (or deeper) than the splitter may hold. */
export class JsonTooLargeError extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** A row read past this many characters is kept in pieces: joined once at its end, not copied again with every chunk. */
const PIECE_CHARS = 256 * 1024;
const OBJ = 1;
/** A row's opening up to its first key (its whitespace kept), when the key has no escapes. */
const FIRST_KEY = /^\{[ \t\r\n]*"[^"\\]*":/;
/** Longest text between two rows learnt for `manyRows` (`, ` or a newline and indent). */
const MAX_GAP = 64;
/** Failed `manyRows` attempts before giving up on them (rows that nest arrays of alike objects). */
const MAX_MISSES = 3;
const ARR = 2;

/** After the array's `[` ('first'), after a `,` ('elem'), after a row ('next'). */
type Mode = 'outside' | 'first' | 'elem' | 'row' | 'next';

/**
 * Reads a JSON document shaped `{ …, "data": { …, "<member>": [ {row}, … ] }, … }` as its text
 * arrives, handing each object of that array to `onRow` as soon as its text is complete (parsed,
 * and its own text as sent), and keeping the rest of the document, with the array emptied, for
 * `end()`. So a page of thousands of rows is never held whole, neither as text nor parsed: the
 * live set is one chunk and one row. Rows are parsed by `JSON.parse` (native speed); where they
 * start alike their bounds are found by `indexOf` (`manyRows`), otherwise scanned here, with
 * strings skipped by `indexOf`.
 */
export class JsonRowSplitter {
  private buf = '';
  private i = 0;
  private mode: Mode = 'outside';
  private inString = false;
  private stringStart = 0;
  private stringIsKey = false;
  private expectKey = false;
  private readonly stack: number[] = [];
  private readonly keys: (string | undefined)[] = [];
  private skeleton = '';
  private rowStart = 0;
  /** The start of a long row being read, scanned already (before `buf`), and its length. */
  private rowHead: string[] = [];
  private rowHeadChars = 0;
  /**
   * Whether the row being read passes `maxHeld` bytes, a string outside the rows or the document
   * around them `maxAround` (counted only when they may).
   */
  private readonly rowBytes: Utf8Bound;
  private readonly stringBytes: Utf8Bound;
  private readonly aroundBytes: Utf8Bound;
  /** Where the scan of the row being read stands. */
  private readonly row: ScanState;
  private readonly maxDepth: number;
  private index = 0;
  /**
   * `},{"<first key>":` with the whitespace the page puts between rows (`}, {"id":` from
   * Python's json.dumps, a newline and indent when pretty-printed), learnt from the first two
   * rows, for `manyRows`; `afterComma`: from the boundary's start to just past its comma.
   */
  private boundary: string | undefined;
  private afterComma = 2;
  /** From the boundary's start to the next row's `{`. */
  private toNextRow = 2;
  /** The first row's opening up to its first key, and the text after it up to the second row. */
  private firstKey: string | undefined;
  private gap = '';
  private misses = 0;
  private started = false;
  private found = false;
  /** Writes so far, and the write after which `manyRows` last found no boundary ahead. */
  private writes = 0;
  private searchedAt = -1;

  /**
   * `onRow` receives each element parsed, its index, and its text (from its `{` to its `}`,
   * exactly as it came); an element that is not an object goes to `onOther`.
   */
  constructor(
    private readonly member: string,
    private readonly onRow: (row: Record<string, unknown>, index: number, text: string) => void,
    private readonly onOther: (index: number) => never,
    {
      maxHeld = Infinity,
      maxDepth = Infinity,
      maxAround = maxHeld,
    }: {
      /** UTF-8 bytes the splitter may hold at once of one row. */
      maxHeld?: number;
      /** Deepest nesting of a row read character by character (printing deeper data overflows the stack). */
      maxDepth?: number;
      /** UTF-8 bytes of the document around the rows (and of one string there) it may hold. */
      maxAround?: number;
    } = {},
  ) {
    this.rowBytes = new Utf8Bound(maxHeld);
    this.stringBytes = new Utf8Bound(maxAround);
    this.aroundBytes = new Utf8Bound(maxAround);
    this.maxDepth = maxDepth;
    this.row = { depth: 0, inString: false, maxDepth };
  }

  write(text: string): void {
    // A byte order mark before the document (undici's text() drops it too).
    if (!this.started) {
      if (text === '') return;
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.writes++;
    this.buf += text;
    const s = this.buf;
    const i = this.scan(s, this.i, s.length);
    this.keepNeeded(s, i);
    this.checkHeld();
  }

  /** Reads `s` from `i` as far as it goes; returns where it stopped (`n`, or the start of a string that goes on). */
  private scan(s: string, i: number, n: number): number {
    while (i < n) {
      if (this.mode === 'row') {
        i = this.scanRow(s, i, n);
        continue;
      }
      if (this.inString) {
        const j = closingQuote(s, i);
        if (j < 0) return n;
        this.endString(s, j);
        i = j + 1;
        continue;
      }
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        if (this.mode === 'outside') this.skeleton += s[i];
        else if (this.firstKey !== undefined) this.learnGap(s[i]);
        i++;
        continue;
      }
      if (this.mode !== 'outside') {
        i = this.between(s, c, i);
        continue;
      }
      this.outside(s, c, i);
      i++;
    }
    return i;
  }

  /** Keeps only what is still needed of `s` (scanned up to `i`): the row being read, or the string being read. */
  private keepNeeded(s: string, i: number): void {
    let keep = this.mode === 'row' ? this.rowStart : this.inString ? this.stringStart : i;
    if (this.mode === 'row' && i - keep > PIECE_CHARS) {
      // A long row (scanned up to i): its text so far goes to the pieces, but for the backslashes
      // that end it, which a closing quote in the next chunk looks back over.
      let cut = i;
      while (cut > keep && s.charCodeAt(cut - 1) === BACKSLASH) cut--;
      this.rowHead.push(s.slice(keep, cut));
      this.rowHeadChars += cut - keep;
      this.rowStart = keep = cut;
    }
    this.buf = s.slice(keep);
    this.i = i - keep;
    this.rowStart -= keep;
    this.stringStart -= keep;
  }

  /** An endless row or string, or an endless document around the rows, would be held whole: refused past its bound. */
  private checkHeld(): void {
    if (
      this.mode === 'row' &&
      this.rowBytes.over(this.buf.length + this.rowHeadChars, () => utf8Length(this.rowHead, this.buf))
    ) {
      throw new JsonTooLargeError(
        `row ${this.index} of data.${this.member} is larger than ${bytesText(this.rowBytes.limit)}`,
      );
    }
    // Outside a row, `buf` holds at most the string being read (a cursor, say).
    if (
      this.mode !== 'row' &&
      this.inString &&
      this.stringBytes.over(this.buf.length, () => Buffer.byteLength(this.buf))
    ) {
      throw new JsonTooLargeError(`a value is larger than ${bytesText(this.stringBytes.limit)}`);
    }
    if (this.aroundBytes.over(this.skeleton.length, () => Buffer.byteLength(this.skeleton))) {
      throw new JsonTooLargeError(
        `the members around data.${this.member} are larger than ${bytesText(this.aroundBytes.limit)}`,
      );
    }
  }

  /** The document without the array's rows (parsed); throws when the text ended early. */
  end(): unknown {
    if (this.mode !== 'outside' || this.inString || this.stack.length > 0 || this.buf.trim() !== '')
      throw new JsonSyntaxError('unexpected end of JSON');
    return parse(this.skeleton);
  }

  /** Structure outside the rows: tracks containers and keys to find `data.<member>`. */
  private outside(s: string, c: number, i: number): void {
    const top = this.stack[this.stack.length - 1];
    switch (c) {
      case QUOTE:
        this.inString = true;
        this.stringStart = i;
        this.stringBytes.reset();
        this.stringIsKey = top === OBJ && this.expectKey;
        return;
      case 0x7b: // {
        this.stack.push(OBJ);
        this.keys[this.stack.length] = undefined;
        this.expectKey = true;
        break;
      case 0x5b: // [
        if (
          this.stack.length === 2 &&
          this.stack[0] === OBJ &&
          this.stack[1] === OBJ &&
          this.keys[1] === 'data' &&
          this.keys[2] === this.member
        ) {
          // JSON.parse would keep only the last of two; rows already handed over cannot be taken back.
          if (this.found) throw new JsonSyntaxError(`data.${this.member} appears twice`);
          this.found = true;
          this.skeleton += '[';
          this.mode = 'first';
          return;
        }
        this.stack.push(ARR);
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (this.stack.pop() !== (c === 0x7d ? OBJ : ARR)) throw new JsonSyntaxError(`unexpected "${s[i]}"`);
        this.expectKey = false;
        break;
      case 0x2c: // ,
        this.expectKey = top === OBJ;
        break;
      case 0x3a: // :
        this.expectKey = false;
        break;
    }
    this.skeleton += s[i];
  }

  private endString(s: string, j: number): void {
    const token = s.slice(this.stringStart, j + 1);
    this.skeleton += token;
    this.inString = false;
    if (this.stringIsKey) this.keys[this.stack.length] = parse(token) as string;
  }

  /** Between the rows of the array: `{` starts a row, `,` and `]` where JSON allows them. */
  private between(s: string, c: number, i: number): number {
    if (this.firstKey !== undefined) {
      if (c === 0x2c) this.learnGap(',');
      else if (c === 0x7b && this.mode === 'elem' && this.index === 1) {
        this.boundary = '}' + this.gap + this.firstKey;
        this.afterComma = 1 + this.gap.indexOf(',') + 1;
        this.toNextRow = 1 + this.gap.length;
        this.firstKey = undefined;
      } else this.firstKey = undefined;
    }
    if (c === 0x7b && this.mode !== 'next') {
      const after = this.manyRows(s, i);
      return after >= 0 ? after : this.startRow(i);
    }
    if (c === 0x2c && this.mode === 'next') {
      this.mode = 'elem';
      return i + 1;
    }
    if (c === 0x5d && this.mode !== 'elem') {
      this.skeleton += ']';
      this.mode = 'outside';
      this.expectKey = false;
      return i + 1;
    }
    if (this.mode === 'next') throw new JsonSyntaxError(`unexpected "${String.fromCharCode(c)}" after an element`);
    return this.onOther(this.index);
  }

  /**
   * Many rows without the scan. Rows that start like the first one (`{"id":`) follow `},`
   * directly, and `},{"id":` with that quote unescaped can only stand between two objects: of
   * this array, or of an array nested in a row. So the text up to each such boundary is taken
   * as a row, and it is one only if it parses as one JSON value: a boundary inside a row leaves
   * that row's braces open (or two rows in one piece), and its parse fails. From the first
   * piece that fails, the scan goes character by character; the rows before it were whole.
   */
  private manyRows(s: string, i: number): number {
    const boundary = this.boundary;
    if (boundary === undefined || this.misses > MAX_MISSES || this.searchedAt === this.writes) return -1;
    const last = s.lastIndexOf(boundary);
    if (last < i) {
      // Nothing ahead in this text (rows split otherwise, or the last one): search again when more arrives.
      this.searchedAt = this.writes;
      return -1;
    }
    for (let from = i; ;) {
      const at = s.indexOf(boundary, from);
      // (Only a first key holding `}` could make boundaries overlap: then the scan takes over.)
      if (at < 0) return this.startRow(from);
      const text = s.slice(from, at + 1);
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch {
        this.misses++;
        return this.startRow(from);
      }
      // From `{` to `}` and one JSON value: an object.
      this.onRow(row as Record<string, unknown>, this.index++, text);
      if (at === last) break;
      from = at + this.toNextRow;
    }
    this.mode = 'elem';
    return last + this.afterComma;
  }

  /** A row read character by character from its `{` at `i`. */
  private startRow(i: number): number {
    this.mode = 'row';
    this.rowStart = i;
    this.rowBytes.reset();
    this.row.depth = 0;
    this.row.inString = false;
    return i;
  }

  /** Between the first two rows: the text that separates rows, for the boundary. */
  private learnGap(c: string): void {
    if (this.index !== 1 || this.gap.length >= MAX_GAP) {
      this.firstKey = undefined;
      return;
    }
    this.gap += c;
  }

  /** Inside a row: counts nesting, skips strings; emits the row when its braces close. */
  private scanRow(s: string, i: number, n: number): number {
    const j = scanJson(s, i, n, this.row);
    if (j === TOO_DEEP)
      throw new JsonTooLargeError(`row ${this.index} of data.${this.member} nests deeper than ${this.maxDepth} levels`);
    if (j < 0) return n;
    let text = s.slice(this.rowStart, j + 1);
    if (this.rowHead.length > 0) {
      text = this.rowHead.join('') + text;
      this.rowHead = [];
      this.rowHeadChars = 0;
    }
    const row = parse(text) as Record<string, unknown>;
    if (this.index === 0) this.firstKey = FIRST_KEY.exec(text)?.[0];
    this.onRow(row, this.index++, text);
    this.mode = 'next';
    return j + 1;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError((err as Error).message);
  }
}
