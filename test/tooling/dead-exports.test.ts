import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No dead exports: every name a module of src/ exports is used by another file (src/, test/,
// scripts/, bin/). An export used only in its own file is a name in the module's public surface
// that nothing needs: it makes the module look bigger than it is, and hides code that may be
// dead. (knip does this too, but pulls in a tree of dependencies for one check; this is the
// check, on the TypeScript compiler cnv already has.)
const ROOT = resolve(import.meta.dirname, '../..');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'fixtures'
        ? []
        : files(join(dir, e.name), ext)
      : ext.test(e.name) && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const SOURCES = files(join(ROOT, 'src'), /\.ts$/);
const USERS = [
  ...SOURCES,
  ...files(join(ROOT, 'test'), /\.(ts|mjs)$/),
  ...files(join(ROOT, 'scripts'), /\.mjs$/),
  join(ROOT, 'bin/cnv.js'),
];

/**
 * What the launcher loads from the bundles scripts/bundle.mjs builds (by their built names,
 * which no import names): the esbuild entry points, whose exports bin/cnv.js calls.
 */
const ENTRY_POINTS: Record<string, string[]> = {
  'bin/cnv.js': ['src/runtime/launcher.ts', 'src/cli/complete-fast.ts'],
};

/** The names a module exports (declarations and `export { … }`; re-exports count as the re-exporter's). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const node of source.statements) {
    const exported =
      ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
      names.push(...node.exportClause.elements.map((e) => e.name.text));
    } else if (exported && ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      exported &&
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)) &&
      node.name
    ) {
      names.push(node.name.text);
    }
  }
  return [...new Set(names)];
}

/** The files of src/ that `file` reaches by path: imports, import(), and paths into dist/ or src/ written in strings. */
function referencedSources(file: string, text: string): Set<string> {
  const found = new Set<string>(ENTRY_POINTS[relative(ROOT, file)]?.map((f) => join(ROOT, f)) ?? []);
  for (const m of text.matchAll(
    /['"`/]((?:\.{1,2}\/|\$\{\w+\}\/|(?:\.\.\/)*(?:src|dist)\/)[\w\-./]*?)\.(?:js|ts)['"`]/g,
  )) {
    const spec = m[1];
    const inTree = /(?:^|\/)(?:src|dist)\/(.*)$/.exec(spec) ?? /^\$\{\w+\}\/(.*)$/.exec(spec);
    const path = inTree ? join(ROOT, 'src', inTree[1]) : resolve(dirname(file), spec);
    found.add(`${path}.ts`);
  }
  // The bench's helper: dist('input/csv-parser.js') loads dist/input/csv-parser.js.
  for (const m of text.matchAll(/\bdist\(['"]([\w\-./]+)\.js['"]\)/g)) found.add(join(ROOT, 'src', `${m[1]}.ts`));
  return found;
}

/** The exports of command modules that the program reads through the contract (src/cmdutil/contract.ts), not by name. */
const CONTRACT = new Set(['options', 'configure', 'run']);

function deadExports(): string[] {
  const texts = new Map(USERS.map((f) => [f, readFileSync(f, 'utf8')]));
  const users = new Map<string, string[]>();
  for (const [file, text] of texts) {
    for (const target of referencedSources(file, text))
      if (target !== file) users.set(target, [...(users.get(target) ?? []), file]);
  }
  const dead: string[] = [];
  for (const file of SOURCES) {
    const command =
      file.includes('/src/commands/') &&
      (texts.get(join(ROOT, 'src/cli/registry.ts')) ?? '').includes(
        relative(join(ROOT, 'src'), file).replace(/\.ts$/, '.js'),
      );
    for (const name of exportedNames(file)) {
      if (command && CONTRACT.has(name)) continue;
      const word = new RegExp(`\\b${name}\\b`);
      if (!(users.get(file) ?? []).some((user) => word.test(texts.get(user)!)))
        dead.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  return dead;
}

describe('exports', () => {
  it('every export of src/ is used outside its own file', () => {
    expect(deadExports()).toEqual([]);
  });

  it('the check sees an export nothing else uses', () => {
    expect(exportedNames(join(ROOT, 'src/endpoints/endpoints.ts'))).toContain('ENDPOINTS');
    const probe = join(ROOT, 'src/probe.ts');
    expect(
      referencedSources(
        probe,
        "import { a } from './endpoints/endpoints.js';\nconst load = () => import(`${DIST}/http/agent.js`);\nawait dist('output/csv-line.js');",
      ),
    ).toEqual(
      new Set([
        join(ROOT, 'src/endpoints/endpoints.ts'),
        join(ROOT, 'src/http/agent.ts'),
        join(ROOT, 'src/output/csv-line.ts'),
      ]),
    );
  });
});
