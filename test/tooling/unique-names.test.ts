import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// One name, one meaning: a maintainer who reads a file name or a type name (`Position`) should not have to ask
// which one. A file's base name is unique in src/ outside the layouts where the folder says
// what it is (a command's `<noun>/<verb>.ts`, the emulator's routes and seed data, one resource
// a file, and index.ts), and no two exported types (interface, type alias, enum, class) share a
// name.
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** Layouts whose base names repeat by design: the folder says what the file is. */
const LAYOUTS = [/^src\/commands\//, /^src\/emulator\/routes\//, /^src\/emulator\/seed\//, /\/index\.ts$/];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const SOURCES = files(SRC).map((f) => relative(ROOT, f));

/** Values that appear under more than one key: value -> the keys. */
function repeated(pairs: Array<[key: string, value: string]>): Record<string, string[]> {
  const by = new Map<string, string[]>();
  for (const [key, value] of pairs) by.set(value, [...(by.get(value) ?? []), key]);
  return Object.fromEntries([...by].filter(([, keys]) => keys.length > 1));
}

/** The types a module declares and exports (re-exports are the same type, not another). */
function exportedTypes(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((node) => {
    const exported =
      ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const isType =
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isEnumDeclaration(node) ||
      ts.isClassDeclaration(node);
    return exported && isType && node.name ? [node.name.text] : [];
  });
}

describe('one name, one meaning (src/)', () => {
  it('no base file name means two things outside the layouts that repeat them by design', () => {
    const named = SOURCES.filter((f) => !LAYOUTS.some((l) => l.test(f)));
    expect(repeated(named.map((f) => [f, basename(f)]))).toEqual({});
  });

  it('no two exported types share a name', () => {
    const types = SOURCES.flatMap((f) => exportedTypes(f).map((name): [string, string] => [f, name]));
    expect(types.length).toBeGreaterThan(100);
    const twice = repeated(types);
    expect(twice).toEqual({});
  });

  it('the checks see a repeat: a base name and a type declared twice are reported with both files', () => {
    expect(
      repeated([
        ['src/a/state.ts', 'state.ts'],
        ['src/b/state.ts', 'state.ts'],
        ['src/c/x.ts', 'x.ts'],
      ]),
    ).toEqual({
      'state.ts': ['src/a/state.ts', 'src/b/state.ts'],
    });
    expect(SOURCES).toContain('src/tap/schemas.ts');
    expect(exportedTypes('src/exporter/export-state.ts')).toContain('ExportState');
  });
});
