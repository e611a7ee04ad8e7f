// The sizes cnv holds to: what it writes in one row or body, what it reads from a server, how
// deep the JSON it prints may nest. Read by http/, input/, the emulator and `cnv api`, so a
// folder of its own below them all.

const MiB = 1024 * 1024;

/**
 * The most cnv writes in one input row (a JSON array element, an NDJSON line, a CSV record), one
 * `cnv api` body, and so the most a record can hold that cnv stored in one write: in UTF-8 bytes
 * of the values as read (a file's escapes and quotes only ever make its text longer).
 */
export const MAX_WRITE_BYTES = 10 * MiB;

/**
 * What one cell of a CSV record costs in memory besides its value (a slot of the record's array,
 * a string's header), counted against MAX_WRITE_BYTES: a line of 100 MB of commas, all empty
 * cells, is refused at the cap instead of held as 100 million strings.
 */
export const CELL_BYTES = 16;

/**
 * The most columns cnv reads in an input file (a CSV header, the keys of JSON rows): far above
 * any spreadsheet's (Excel's 16,384), and a refusal (exit 2) instead of work in every row.
 */
export const MAX_COLUMNS = 100_000;

/**
 * The most bytes a server's JSON may spell one byte of a value with: a control character is
 * `\u0001`, 6 bytes for 1 (a non-ASCII letter as `\u00e9`: 6 for 2; Python's json.dumps escapes
 * every one).
 */
export const WORST_SPELLING = 6;

/**
 * Size limits of what cnv reads from the server, in bytes (the spec names none; these are far
 * above any answer the API gives, and easy to change here). A record holding what cnv wrote in
 * one row, spelled the worst way (WORST_SPELLING x MAX_WRITE_BYTES = 60 MiB), fits in an answer
 * and in an export row with 4 MiB to spare for the rest of the record; test/unit/body-limits.test.ts
 * holds them to that.
 */
export const BODY_LIMITS = {
  /** A whole non-export answer (a record, a list page, a batch result of 1,000 items). */
  answerBytes: 64 * MiB,
  /** An error answer: the API's is a few hundred bytes; past this it is not the API's. */
  errorBytes: 64 * 1024,
  /** A whole export page, read as it streams (5,000 rows of 50 KiB would be 250 MiB). */
  pageBytes: 512 * MiB,
  /** One row of an export page, held while it arrives. */
  rowBytes: 64 * MiB,
  /** The members around an export page's rows (and one string there: a cursor), held while they arrive. */
  aroundBytes: 8 * MiB,
};

/** A size in words: `16 MiB`, `64 KiB`. */
export function sizeText(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Deepest nesting of arrays and objects accepted in an answer: printing deeper data would overflow the stack. */
export const MAX_DEPTH = 256;

/** Whether a parsed JSON value nests arrays and objects deeper than `limit` (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
