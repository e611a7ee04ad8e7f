import { CELL_BYTES, MAX_WRITE_BYTES, sizeText } from '../limits/limits.js';
import { Utf8Bound, utf8Length } from '../lib/utf8-bound.js';
import { quoteInput } from './input-rows.js';

/**
 * A streaming RFC 4180 parser for input files, written for the batch commands' needs and speed
 * (csv-parse with line information cost ~5 µs a row; this is well under 1 µs):
 *
 * - the record delimiter is the first line break met outside quotes: LF (CRLF counts as LF)
 *   or, for old Mac files, a bare CR; line breaks inside quoted values are kept exactly;
 * - a byte order mark at the very start is dropped; wholly empty lines are skipped;
 * - quoted fields hold delimiters, line breaks and doubled quotes;
 * - a quote inside an unquoted field makes that record an error row (the rest still reads);
 * - after a closing quote only a delimiter or a line break may follow, and a quote must be
 *   closed before the end: both are fatal, since nothing after them can be trusted.
 *
 * Every record carries the physical line where it starts (1-based); an error row carries the
 * line of the error.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
  /** Set when the record could not be read; `fields` are then partial. */
  error?: string;
}

/** A problem after which the rest of the file cannot be read. */
export class CsvFatalError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly code: 'CSV_INVALID_CLOSING_QUOTE' | 'CSV_QUOTE_NOT_CLOSED' | 'CSV_RECORD_TOO_LONG',
  ) {
    super(message);
  }
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/** A quote or a line break: what ends a run of plain text inside quotes (outside, the delimiter too). */
const isQuotedSpecial = (c: number) => c === QUOTE || c === LF || c === CR;

const enum State {
  /** At the start of a field. */
  FieldStart,
  /** Inside an unquoted field. */
  Unquoted,
  /** Inside a quoted field. */
  Quoted,
  /** Just after a quote inside a quoted field: a closing quote, or the first of a pair. */
  QuoteInQuoted,
}

export class CsvParser {
  private readonly delimiter: string;
  private readonly delimiterCode: number;
  private state = State.FieldStart;
  /** 'lf' or 'cr' once the first line break outside quotes was seen. */
  private lineEnd: 'lf' | 'cr' | undefined;
  private line = 1;
  private recordLine = 1;
  private quoteLine = 1;
  private fields: string[] = [];
  /** Characters of the fields of the record being read, the open one left out. */
  private fieldsChars = 0;
  /**
   * A record larger than cnv writes in one row (an unclosed quote that swallows the file, or no
   * CSV) ends the file: it is never held whole. Counted in UTF-8 bytes of its values, and
   * CELL_BYTES for each cell (a line of empty cells holds memory too).
   */
  private readonly bytes: Utf8Bound;
  private field = '';
  private error: string | undefined;
  private errorLine = 1;
  /** A CR at the very end of the last chunk, waiting to see whether an LF follows. */
  private heldCr = false;
  /** In end(): no more text comes, so a CR at the end is a whole line break. */
  private final = false;
  private started = false;

  /**
   * `firstLine`: the line number of the text's first line (2 after an Excel `sep=` line the caller
   * took off); `maxRecordBytes`: the most a record may hold (what cnv writes in one row).
   */
  constructor(delimiter = ',', firstLine = 1, maxRecordBytes = MAX_WRITE_BYTES) {
    this.bytes = new Utf8Bound(maxRecordBytes);
    this.line = firstLine;
    this.recordLine = firstLine;
    this.delimiter = delimiter;
    this.delimiterCode = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;
  }

  /** Parses the next piece of text; returns the records it completed. */
  push(text: string, out: CsvRecord[] = []): CsvRecord[] {
    text = this.continued(text);
    const n = text.length;
    const dc = this.delimiterCode;
    let i = 0;
    // The runs of plain text are read here, at once; each special character goes to its state's method.
    while (i < n) {
      const c = text.charCodeAt(i);
      if (this.state === State.Quoted) {
        if (c === QUOTE || c === LF || c === CR) {
          i = this.quotedSpecial(c, text, i, n);
          continue;
        }
        let j = i + 1;
        while (j < n && !isQuotedSpecial(text.charCodeAt(j))) j++;
        this.field += text.slice(i, j);
        i = j;
      } else if (this.state === State.QuoteInQuoted) {
        i = this.afterQuote(text, i, n, out);
      } else if (c === QUOTE || c === LF || c === CR || c === dc || (dc === -1 && text.startsWith(this.delimiter, i))) {
        i = this.unquotedSpecial(text, i, n, out);
      } else {
        let j = i + 1;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (isQuotedSpecial(d) || d === dc || (dc === -1 && text.startsWith(this.delimiter, j))) break;
          j++;
        }
        this.field += text.slice(i, j);
        this.state = State.Unquoted;
        i = j;
      }
    }
    this.checkSize();
    return out;
  }

  /** The record being read (or just read) may not pass what cnv writes in one row. */
  private checkSize(): void {
    const cells = CELL_BYTES * (this.fields.length + 1);
    if (this.bytes.over(this.fieldsChars + this.field.length, () => utf8Length(this.fields, this.field), cells)) {
      const why = this.state === State.Quoted ? `a quote opened on line ${this.quoteLine} is not closed, or ` : '';
      const many = this.fields.length >= 1000 ? ` (${this.fields.length.toLocaleString('en-US')} cells or more)` : '';
      throw new CsvFatalError(
        `the record is larger than ${sizeText(this.bytes.limit)}${many}: ${why}not a CSV file?`,
        this.recordLine,
        'CSV_RECORD_TOO_LONG',
      );
    }
  }

  /** The text as it continues the input: the byte order mark off the very start, a CR held from the last piece put back. */
  private continued(text: string): string {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.heldCr) {
      this.heldCr = false;
      text = '\r' + text;
    }
    return text;
  }

  /**
   * At the start of a field or inside an unquoted one, at a quote, a line break or a delimiter:
   * returns the index after what it read.
   */
  private unquotedSpecial(text: string, i: number, n: number, out: CsvRecord[]): number {
    if (text.charCodeAt(i) === QUOTE) {
      if (this.state === State.FieldStart && this.field === '') {
        this.state = State.Quoted;
        this.quoteLine = this.line;
        return i + 1;
      }
      if (this.error === undefined) {
        this.error = `Invalid Opening Quote: a quote is found on field ${this.fields.length}, value is ${quoteInput(this.field)}`;
        this.errorLine = this.line;
      }
      this.field += '"';
      return i + 1;
    }
    const next = this.fieldEnd(text, i, n, out);
    if (next >= 0) return next;
    // Data after all (a line break of the other style): one character of the field.
    this.field += text[i];
    this.state = State.Unquoted;
    return i + 1;
  }

  /** Inside a quoted field, at a quote (closing, or the first of a pair) or a line break (the value's). */
  private quotedSpecial(c: number, text: string, i: number, n: number): number {
    if (c === QUOTE) {
      this.state = State.QuoteInQuoted;
      return i + 1;
    }
    if (c === LF) {
      if (this.lineEnd !== 'cr') this.line++;
      this.field += '\n';
      return i + 1;
    }
    if (i + 1 >= n && !this.final) {
      this.heldCr = true;
      return n;
    }
    if (text.charCodeAt(i + 1) === LF) {
      // CRLF inside a value is kept as it is (one line break).
      this.field += '\r\n';
      this.line++;
      return i + 2;
    }
    if (this.lineEnd === 'cr') this.line++;
    this.field += '\r';
    return i + 1;
  }

  /** After a quote in a quoted field: a doubled quote, or the field's end; anything else is fatal. */
  private afterQuote(text: string, i: number, n: number, out: CsvRecord[]): number {
    if (text.charCodeAt(i) === QUOTE) {
      this.field += '"';
      this.state = State.Quoted;
      return i + 1;
    }
    const next = this.fieldEnd(text, i, n, out);
    if (next >= 0) return next;
    throw new CsvFatalError(
      `Invalid Closing Quote: got ${quoteInput(text[i])} instead of a delimiter or line end`,
      this.line,
      'CSV_INVALID_CLOSING_QUOTE',
    );
  }

  /** The end of the input: the last record (without a line end), or the fatal unclosed quote. */
  end(out: CsvRecord[] = []): CsvRecord[] {
    if (this.heldCr) {
      this.heldCr = false;
      this.final = true;
      this.push('\r', out);
    }
    if (this.state === State.Quoted) {
      throw new CsvFatalError(
        'Quote Not Closed: the parsing is finished with an opening quote',
        this.quoteLine,
        'CSV_QUOTE_NOT_CLOSED',
      );
    }
    if (this.state !== State.FieldStart || this.fields.length > 0 || this.field !== '') this.endRecord(out);
    return out;
  }

  /**
   * Outside quotes: ends the field at a delimiter, or the record at a line break, and returns
   * the index after it; -1 when the character there is data (a line break of the other style
   * included). A CR that ends the text waits for the next piece (returns `n`).
   */
  private fieldEnd(text: string, i: number, n: number, out: CsvRecord[]): number {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) {
      const consumed = this.lineBreak(text, i, n);
      if (consumed === 0) {
        this.heldCr = true;
        return n;
      }
      if (consumed < 0) return -1;
      this.endRecord(out);
      return i + consumed;
    }
    if (c === this.delimiterCode || (this.delimiterCode === -1 && text.startsWith(this.delimiter, i))) {
      this.fields.push(this.field);
      this.fieldsChars += this.field.length;
      this.field = '';
      this.state = State.FieldStart;
      return i + this.delimiter.length;
    }
    return -1;
  }

  /**
   * At a CR or LF outside quotes: the length of the record delimiter there (1 or 2), -1 when
   * this character is data (the other line-end style), 0 when a CR ends the text.
   */
  private lineBreak(text: string, i: number, n: number): number {
    const c = text.charCodeAt(i);
    if (c === CR) {
      if (i + 1 >= n && !this.final) return 0;
      if (text.charCodeAt(i + 1) === LF) {
        if (this.lineEnd === 'cr') return -1;
        this.lineEnd = 'lf';
        return 2;
      }
      if (this.lineEnd === undefined) this.lineEnd = 'cr';
      return this.lineEnd === 'cr' ? 1 : -1;
    }
    if (this.lineEnd === undefined) this.lineEnd = 'lf';
    return this.lineEnd === 'lf' ? 1 : -1;
  }

  private endRecord(out: CsvRecord[]): void {
    const empty = this.state === State.FieldStart && this.fields.length === 0 && this.field === '';
    if (!empty) {
      this.checkSize();
      this.fields.push(this.field);
      const record: CsvRecord = { line: this.recordLine, fields: this.fields };
      if (this.error !== undefined) {
        record.line = this.errorLine;
        record.error = this.error;
      }
      out.push(record);
    }
    this.fields = [];
    this.fieldsChars = 0;
    this.bytes.reset();
    this.field = '';
    this.error = undefined;
    this.state = State.FieldStart;
    this.line++;
    this.recordLine = this.line;
  }
}

/**
 * The records of a CSV file cnv wrote (a report), read in pieces: one batch per piece. A last
 * record whose quote is still open (a run killed in the middle of writing it) is left out; any
 * other fatal problem is thrown (CsvFatalError). A record that cannot be read comes with its
 * `error` set.
 */
export async function* csvRecords(input: AsyncIterable<string>, maxRecordBytes?: number): AsyncGenerator<CsvRecord[]> {
  const parser = new CsvParser(',', 1, maxRecordBytes);
  for await (const piece of input) {
    const records = parser.push(piece);
    if (records.length > 0) yield records;
  }
  try {
    const last = parser.end();
    if (last.length > 0) yield last;
  } catch (err) {
    if (!(err instanceof CsvFatalError && err.code === 'CSV_QUOTE_NOT_CLOSED')) throw err;
  }
}
