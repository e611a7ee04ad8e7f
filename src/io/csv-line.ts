/**
 * Quote every value holding a comma, quote, CR or LF. csv-stringify by itself quotes only the
 * configured record delimiter, so a bare CR or LF in the other line-ending style would go out
 * unquoted and split a record for RFC 4180 readers.
 */
export const CSV_QUOTED_MATCH = /[\r\n",]/;

/** A function turning rows of cells into CSV text (RFC 4180 quoting), loaded on first use. */
export async function csvFormatter(recordDelimiter: '\n' | '\r\n' = '\n'): Promise<(rows: string[][]) => string> {
  const { stringify } = await import('csv-stringify/sync');
  return (rows) => stringify(rows, { quoted_match: CSV_QUOTED_MATCH, record_delimiter: recordDelimiter });
}
