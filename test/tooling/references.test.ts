import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { ExitCode } from '../../src/errors.js';
import { cnvInProcess } from '../helpers/cli.js';

// References that go stale when a file moves or a code is added: each doc a comment or a doc
// names exists, each file a source comment names exists, and every exit code of src/errors.ts
// is where a user looks for it.
const ROOT = resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|mjs|js|md)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const CODES = [...new Set(Object.values(ExitCode))];

/** The comments of a TypeScript file (TypeScript's scanner: not the text of strings or regexes). */
function commentsOf(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: string[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia)
      found.push(scanner.getTokenText());
  }
  return found;
}

/** A file name as comments write it (`row-report.ts`, `batch/file-run.ts`, a path relative to the file), not `Node.js`. */
const FILE_NAME = /(?<![\w@/.$-])(?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|cjs|md)\b/g;
const NOT_FILES = new Set(['Node.js']);

describe('references', () => {
  it('every docs/*.md that src/, scripts/, bin/, README.md or docs/ names exists', () => {
    const missing: string[] = [];
    for (const file of [
      ...files(join(ROOT, 'src')),
      ...files(join(ROOT, 'scripts')),
      ...files(join(ROOT, 'bin')),
      ...files(join(ROOT, 'docs')),
      join(ROOT, 'README.md'),
    ]) {
      for (const [doc] of readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w./-]+\.md\b/g)) {
        if (!existsSync(join(ROOT, doc))) missing.push(`${relative(ROOT, file)}: ${doc}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every src/ file that README.md and docs/ name exists', () => {
    const missing: string[] = [];
    for (const file of [...files(join(ROOT, 'docs')), join(ROOT, 'README.md'), join(ROOT, 'test/bench/analysis.md')]) {
      for (const [path] of readFileSync(file, 'utf8').matchAll(/\bsrc\/[\w./-]+\.(?:ts|js)\b/g)) {
        // A built path (dist/emulator/index.js) is named by its source, src/emulator/index.ts.
        if (!existsSync(join(ROOT, path.replace(/\.js$/, '.ts')))) missing.push(`${relative(ROOT, file)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every file a comment of src/ or test/ names exists (by its path, or a path that ends with it)', () => {
    const repo = ['src', 'test', 'scripts', 'bin', 'docs']
      .flatMap((dir) => files(join(ROOT, dir)))
      .map((f) => relative(ROOT, f));
    const bundle = readFileSync(join(ROOT, 'scripts/bundle.mjs'), 'utf8');
    const exists = (name: string, from: string): boolean => {
      // A built file: its source (dist/x/y.js is src/<folder>/<name>.ts), or one the bundle script writes.
      if (name.startsWith('dist/bundle/')) return bundle.includes(name.slice('dist/bundle/'.length));
      if (name.startsWith('dist/'))
        return existsSync(join(ROOT, 'src', name.slice('dist/'.length).replace(/\.js$/, '.ts')));
      const spellings = [name, name.replace(/\.js$/, '.ts')];
      if (name.startsWith('.')) return spellings.some((n) => existsSync(join(ROOT, dirname(from), n)));
      return spellings.some((n) => existsSync(join(ROOT, n)) || repo.some((f) => f.endsWith(`/${normalize(n)}`)));
    };
    const missing: string[] = [];
    for (const file of repo.filter((f) => /^(src|test)\/.*\.ts$/.test(f))) {
      for (const comment of commentsOf(readFileSync(join(ROOT, file), 'utf8'))) {
        for (const [name] of comment.matchAll(FILE_NAME))
          if (!NOT_FILES.has(name) && !exists(name, file)) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every exit code is in `cnv help exit-codes` and README.md's table", () => {
    const topic = HELP_TOPICS['exit-codes'].text;
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const code of CODES) {
      expect(topic).toMatch(new RegExp(`^ {2}${code} `, 'm'));
      expect(readme).toMatch(new RegExp(`^\\| (\\d+ / )?${code}( / \\d+)? \\|`, 'm'));
    }
  });

  it('the exit-code line of every help page names each code a command ends with (all but 1, a bug, and the signals)', async () => {
    // (The line wraps with the page's width: read as one line.)
    const help = (await cnvInProcess(['--help'])).stdout.replace(/\s+/g, ' ');
    const line = /Exit codes \(`cnv help exit-codes`\): [^.]*\./.exec(help)?.[0];
    expect(line).toBeDefined();
    const named = [...line!.matchAll(/\b(\d+) [a-z]/g)].map((m) => Number(m[1]));
    expect(named).toEqual(CODES.filter((c) => c !== ExitCode.internal && c < 100));
  });
});
