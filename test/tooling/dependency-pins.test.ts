import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// cnv imports undici and zod by their public entries, but scripts/bundle.mjs leaves out files
// of both by their paths. A new minor version may move them: package.json pins both to patch
// releases (`~`), and this test fails before such an update can go in unnoticed.
const ROOT = resolve(import.meta.dirname, '../..');
const require = createRequire(join(ROOT, 'package.json'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const pkgOf = (name: string) =>
  JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string; exports?: unknown };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}
/** Every `undici/lib/...` or `zod/v4/...` path named in src (an import by file). */
const deepPaths = [
  ...new Set(
    sourceFiles(join(ROOT, 'src')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/['"]((?:undici|zod)\/(?:lib|v4)\/[^'"]+)['"]/g)].map((m) => m[1]!),
    ),
  ),
].sort();

describe('undici and zod: pinned, and the files the bundle replaces by path are where it expects', () => {
  it("package.json's ranges for undici and zod are `~` (patch releases only), matching the installed versions", () => {
    for (const name of ['undici', 'zod']) {
      const range = pkg.dependencies[name]!;
      expect(range, name).toMatch(/^~\d+\.\d+\.\d+$/);
      expect(pkgOf(name).version.split('.').slice(0, 2), name).toEqual(range.slice(1).split('.').slice(0, 2));
    }
  });

  it('src/ imports no undici or zod file by its path, only the packages (an update moving their files breaks no import)', () => {
    expect(deepPaths).toEqual([]);
  });

  it('the files scripts/bundle.mjs leaves out or replaces by path exist', () => {
    const dirOf = (name: string) => dirname(require.resolve(`${name}/package.json`));
    const files = [
      ...['dispatcher/client-h2.js', 'web/fetch/body.js', 'dispatcher/client-h1.js'].map((f) =>
        join(dirOf('undici'), 'lib', f),
      ),
      ...[
        'core/json-schema-processors.js',
        'core/to-json-schema.js',
        'core/json-schema-generator.js',
        'core/compile.js',
        'classic/from-json-schema.js',
        'locales/index.js',
        'locales/en.js',
      ].map((f) => join(dirOf('zod'), 'v4', f)),
    ];
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    expect(() => require.resolve('zod/v4/locales/en.js')).not.toThrow();
  });
});
