// Bundles the CLI (our code, commander, and the parts of undici and zod it uses) into
// dist/bundle with code splitting, so start-up resolves and compiles a handful of files
// instead of dozens; the other dependencies stay external and are imported lazily.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['commander', 'undici', 'zod']);
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
// cnv never enables allowH2, so it is never called), and commander's eager node:child_process
// (used only for executable subcommands, which cnv has none of; kept, but loaded on use).
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /[\\/]client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]/.test(args.importer) ? { path: 'undici-h2', namespace: 'cnv-stub' } : undefined);
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child-process', namespace: 'cnv-stub' } : undefined);
    b.onLoad({ filter: /^undici-h2$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('HTTP/2 is not built into cnv'); };",
      loader: 'js',
    }));
    b.onLoad({ filter: /^child-process$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

// Stale chunks of earlier builds would otherwise pile up (names are content hashes).
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

const result = await build({
  entryPoints: ['src/main.ts', 'src/errors.ts'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [englishOnlyZod, lazyModules],
  // commander and undici are CommonJS: give their require() of node built-ins a real require.
  banner: { js: "import { createRequire as __cnvRequire } from 'node:module'; const require = __cnvRequire(import.meta.url);" },
  logLevel: 'warning',
  // CNV_BUNDLE_META=FILE: what each chunk holds (https://esbuild.github.io/analyze/), for start-up work.
  metafile: Boolean(process.env.CNV_BUNDLE_META),
});
if (process.env.CNV_BUNDLE_META) writeFileSync(process.env.CNV_BUNDLE_META, JSON.stringify(result.metafile));
