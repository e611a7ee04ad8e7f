import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// cnv imports undici by file (src/http/undici.ts), which works only while undici has no
// `exports` map, and scripts/bundle.mjs leaves out files of undici and zod by their paths. A
// new minor version may move them: package.json pins both to patch releases (`~`), and this
// test fails before such an update can go in unnoticed.
const ROOT = resolve(import.meta.dirname, '../..');
const require = createRequire(join(ROOT, 'package.json'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const pkgOf = (name: string) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string; exports?: unknown };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}
/** Every `undici/lib/...` path named in src (imports, and the modules undici-parts.d.ts declares). */
const deepPaths = [...new Set(sourceFiles(join(ROOT, 'src')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/['"](undici\/lib\/[^'"]+)['"]/g)].map((m) => m[1]!)))].sort();

describe('undici and zod: pinned, and the files cnv reaches into are where it expects', () => {
  it("package.json's ranges for undici and zod are `~` (patch releases only), matching the installed versions", () => {
    for (const name of ['undici', 'zod']) {
      const range = pkg.dependencies[name]!;
      expect(range, name).toMatch(/^~\d+\.\d+\.\d+$/);
      expect(pkgOf(name).version.split('.').slice(0, 2), name).toEqual(range.slice(1).split('.').slice(0, 2));
    }
  });

  it('undici has no exports map (else its lib/ files cannot be imported)', () => {
    expect(pkgOf('undici').exports).toBeUndefined();
  });

  it('every undici/lib path cnv imports resolves, and is what src/http/undici.ts takes it for', () => {
    expect(deepPaths).toEqual([
      'undici/lib/api/api-connect.js',
      'undici/lib/api/api-request.js',
      'undici/lib/dispatcher/env-http-proxy-agent.js',
      'undici/lib/dispatcher/pool.js',
    ]);
    for (const path of deepPaths) expect(() => require.resolve(path), path).not.toThrow();
    const undici = require('undici') as { EnvHttpProxyAgent: unknown; Pool: unknown; Dispatcher: { prototype: Record<string, unknown> } };
    expect(require('undici/lib/dispatcher/env-http-proxy-agent.js')).toBe(undici.EnvHttpProxyAgent);
    expect(require('undici/lib/dispatcher/pool.js')).toBe(undici.Pool);
    expect(require('undici/lib/api/api-request.js')).toBe(undici.Dispatcher.prototype.request);
    expect(require('undici/lib/api/api-connect.js')).toBe(undici.Dispatcher.prototype.connect);
    // The proxy agent makes its client to the proxy with the `clientFactory` option (src/http/agent.ts).
    expect(readFileSync(require.resolve('undici/lib/dispatcher/proxy-agent.js'), 'utf8')).toMatch(/clientFactory\(url, \{ connect \}\)/);
  });

  it('the files scripts/bundle.mjs leaves out or replaces by path exist', () => {
    const dirOf = (name: string) => dirname(require.resolve(`${name}/package.json`));
    const files = [
      ...['dispatcher/client-h2.js', 'web/fetch/body.js', 'dispatcher/client-h1.js'].map((f) => join(dirOf('undici'), 'lib', f)),
      ...['core/json-schema-processors.js', 'core/to-json-schema.js', 'core/json-schema-generator.js', 'core/compile.js', 'classic/from-json-schema.js', 'locales/index.js', 'locales/en.js'].map((f) => join(dirOf('zod'), 'v4', f)),
    ];
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
    expect(() => require.resolve('zod/v4/locales/en.js')).not.toThrow();
  });
});
