/**
 * Quote every value holding a comma, quote, CR or LF. (csv-stringify by itself quotes only the
 * configured record delimiter, so a bare CR or LF in the other line-ending style would go out
 * unquoted and split a record for RFC 4180 readers.)
 */
export const CSV_QUOTED_MATCH = /[\r\n",]/;

const QUOTES = /"/g;

/** One RFC 4180 cell: as it is, or quoted with its quotes doubled. */
export function csvCell(value: string): string {
  return CSV_QUOTED_MATCH.test(value) ? `"${value.replace(QUOTES, '""')}"` : value;
}

/** A cell that is always quoted: a text equal to the --null-as marker is written `"\N"`, as PostgreSQL does. */
function quotedCell(value: string): string {
  return `"${value.replace(QUOTES, '""')}"`;
}

/**
 * A function turning rows of cells into CSV text (RFC 4180 quoting), every record ended by
 * `recordDelimiter`. The same text csv-stringify gives with `quoted_match: CSV_QUOTED_MATCH`
 * for string cells, written directly: csv-stringify's per-cell machinery cost ~15 µs a row
 * and most of an export's garbage collection. (Async for the callers written when it was
 * loaded on first use.)
 */
export async function csvFormatter(
  recordDelimiter: '\n' | '\r\n' = '\n',
  quoted?: (cells: string[]) => ReadonlySet<number> | undefined,
): Promise<(rows: string[][]) => string> {
  return (rows) => {
    let out = '';
    for (const cells of rows) {
      let line = '';
      const always = quoted?.(cells);
      for (let i = 0; i < cells.length; i++) {
        const cell = always?.has(i) ? quotedCell(cells[i]) : csvCell(cells[i]);
        line += i === 0 ? cell : `,${cell}`;
      }
      out += line + recordDelimiter;
    }
    return out;
  };
}
