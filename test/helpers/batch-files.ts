import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

/** A row of a batch report (docs/batches.md), as read back from its CSV. */
export type ReportRow = { line: string; identifier: string; status: string; cnvContactId: string; error: string; message: string };

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
    readReport: (path: string): ReportRow[] => parse(readFileSync(path), { columns: true }),
  };
}
