// Bundles the CLI (our code, commander, p-limit, and the parts of undici and zod it uses) into
// dist/bundle with code splitting, so start-up resolves and compiles a handful of files
// instead of dozens; the other dependencies stay external and are imported lazily.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['commander', 'p-limit', 'undici', 'zod']);
const external = Object.keys(pkg.dependencies).filter((name) => !BUNDLED.has(name));

// zod's namespace re-exports its ~40 message locales (360 kB, half of zod once bundled) as
// `z.locales`; cnv only ever uses English, which zod registers by itself.
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'cnv-stub' } : undefined);
    b.onLoad({ filter: /^zod-locales$/, namespace: 'cnv-stub' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: new URL('..', import.meta.url).pathname,
    }));
  },
};

// Start-up work no command needs: undici's HTTP/2 client (loads node:http2 and node:tls, while
// cnv never enables allowH2, so it is never called), its fetch body machinery (~100 kB, used
// only for FormData request bodies, which cnv never sends), and commander's eager
// node:child_process (used only for executable subcommands, which cnv has none of; kept, but
// loaded on use).
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /[\\/]client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]/.test(args.importer) ? { path: 'undici-h2', namespace: 'cnv-stub' } : undefined);
    b.onResolve({ filter: /[\\/]web[\\/]fetch[\\/]body\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer) ? { path: 'undici-form-body', namespace: 'cnv-stub' } : undefined);
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child-process', namespace: 'cnv-stub' } : undefined);
    b.onLoad({ filter: /^undici-h2$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('HTTP/2 is not built into cnv'); };",
      loader: 'js',
    }));
    b.onLoad({ filter: /^undici-form-body$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = { extractBody() { throw new Error('FormData request bodies are not built into cnv'); } };",
      loader: 'js',
    }));
    b.onLoad({ filter: /^child-process$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

// zod's JSON Schema conversion and ahead-of-time compiler (z.toJSONSchema, z.fromJSONSchema,
// z.compile: 130 kB), which cnv never uses: the same exports, each throwing if ever called.
const ZOD_UNUSED = /[\\/]zod[\\/]v4[\\/](core[\\/](json-schema-processors|to-json-schema|json-schema-generator|compile)|classic[\\/]from-json-schema)\.js$/;
const zodWithoutJsonSchema = {
  name: 'zod-without-json-schema',
  setup(b) {
    b.onLoad({ filter: ZOD_UNUSED }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const lines = [`const unavailable = (name) => () => { throw new Error('zod ' + name + ' is not built into cnv'); };`];
      for (const m of source.matchAll(/^export (?:async )?(function|const|let|class) (\w+)/gm)) {
        const [, kind, name] = m;
        if (name === 'INVALID') lines.push(`export const INVALID = Symbol.for('zod.compile.invalid');`);
        else if (kind === 'class') lines.push(`export class ${name} extends Error {}`);
        else if (name === 'allProcessors') lines.push('export const allProcessors = {};');
        else lines.push(`export const ${name} = unavailable('${name}');`);
      }
      for (const m of source.matchAll(/^export \{ (\w+) as (\w+) \};/gm)) lines.push(`export { ${m[1]} as ${m[2]} };`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: { main: 'src/main.ts', errors: 'src/errors.ts', 'complete-fast': 'src/cli/complete-fast.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [englishOnlyZod, lazyModules, zodWithoutJsonSchema],
  // commander and undici are CommonJS: give their require() of node built-ins a real require.
  banner: { js: "import { createRequire as __cnvRequire } from 'node:module'; const require = __cnvRequire(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
});
// CNV_BUNDLE_META=FILE: what each chunk holds (https://esbuild.github.io/analyze/), for start-up work.
if (process.env.CNV_BUNDLE_META) writeFileSync(process.env.CNV_BUNDLE_META, JSON.stringify(result.metafile));

// Chunk names are content hashes: remove those of earlier builds, but not in the middle of a
// process started from them a moment ago (it may still import a chunk lazily).
const current = new Set(Object.keys(result.metafile.outputs).map((out) => basename(out)));
const dir = new URL('../dist/bundle/', import.meta.url);
for (const name of readdirSync(dir)) {
  const file = new URL(name, dir);
  if (!current.has(name) && Date.now() - statSync(file).mtimeMs > 60_000) rmSync(file, { force: true });
}

// The completion table: `cnv __complete` (run on every TAB) answers from it without loading a command.
const { completionTable } = await import('../dist/cli/completion-table.js');
writeFileSync(new URL('completion.json', dir), JSON.stringify(await completionTable()));
