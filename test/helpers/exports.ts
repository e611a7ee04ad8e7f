import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ExportStateStore } from '../../src/exports/state-store.js';
import type { ExportState } from '../../src/exports/state.js';

/** A fresh directory for export output files. */
export function outDir(): string {
  return mkdtempSync(join(tmpdir(), 'cnv-export-'));
}

/** The saved state of a key in a config directory. */
export async function exportState(configDir: string, key: string): Promise<ExportState | undefined> {
  return (await ExportStateStore.open(configDir)).read(key);
}

export async function statePath(configDir: string, key: string): Promise<string> {
  return (await ExportStateStore.open(configDir)).pathOf(key);
}

/** The rows of an NDJSON file (or text). */
export function ndjsonRows(pathOrText: string): Array<Record<string, any>> {
  const text = existsSync(pathOrText) ? readFileSync(pathOrText, 'utf8') : pathOrText;
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

/** The records of a CSV file, header first, as a real parser reads them. */
export function csvRecords(path: string): string[][] {
  return parse(readFileSync(path, 'utf8'), { bom: true, relax_column_count: false });
}

/** Lines that occur more than once (a duplicated row). */
export function duplicates(lines: string[]): string[] {
  const seen = new Set<string>();
  return lines.filter((l) => (seen.has(l) ? true : (seen.add(l), false)));
}
