import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

/** A row of a batch report (docs/batches.md), as read back from its CSV. */
export type ReportRow = {
  line: string;
  identifier: string;
  status: string;
  cnvContactId: string;
  error: string;
  message: string;
  row: string;
  hash: string;
  job: string;
};

/** A report's text, checked to be one: a plain CSV whose first line is its header (the run named in its `job` column). */
export function reportCsv(text: string): string {
  if (!/^line,identifier,status,\w+,error,message,row,hash,job(\n|$)/.test(text))
    throw new Error(`not a report: ${JSON.stringify(text.slice(0, 80))}`);
  return text;
}

/** The rows of a report's text. */
export function reportRows<R = ReportRow>(text: string | Buffer): R[] {
  return parse(reportCsv(String(text)), { columns: true });
}

/** A temp dir for input files and reports; every name is made unique. */
export function batchFiles(prefix = 'cnv-batch-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    dir,
    write(name: string, content: string): string {
      const path = join(dir, `${n++}-${name}`);
      writeFileSync(path, content);
      return path;
    },
    reportPath: () => join(dir, `${n++}-report.csv`),
    readReport: (path: string): ReportRow[] => reportRows(readFileSync(path)),
  };
}
