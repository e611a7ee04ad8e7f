import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Issue 24: the functions that had grown into hubs (each did several things at once) were
// split where their logic divides; each stays under 60 lines.
const ROOT = resolve(import.meta.dirname, '../..');
const HUBS: Array<[file: string, name: string]> = [
  ['src/batch/run-batch.ts', 'runBatch'],
  ['src/cli/create-context.ts', 'createContext'],
  ['src/exports/multi-type.ts', 'runEmailTypes'],
  ['src/io/csv-parser.ts', 'push'],
  ['src/batch/report-file.ts', 'openReportFile'],
];

/** The length in lines of each function or method called `name` in the file. */
function lengths(file: string, name: string): number[] {
  const source = ts.createSourceFile(file, readFileSync(resolve(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: number[] = [];
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(source) === name) found.push(line(node.end) - line(node.getStart(source)) + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the hubs of issue 24', () => {
  it.each(HUBS)('%s %s is under 60 lines', (file, name) => {
    const found = lengths(file, name);
    expect(found).toHaveLength(1);
    expect(found[0]).toBeLessThan(60);
  });
});
