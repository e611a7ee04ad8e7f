// Bundles the CLI (our code and commander) into dist/bundle with code splitting, so start-up
// resolves a handful of files instead of dozens; heavy dependencies stay external and lazy.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['commander', 'undici', 'zod']);
const external = Object.keys(pkg.dependencies).filter((name) => !BUNDLED.has(name));

await build({
  entryPoints: ['src/main.ts', 'src/errors.ts'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // commander is CommonJS: give its require() of node built-ins a real require.
  banner: { js: "import { createRequire as __cnvRequire } from 'node:module'; const require = __cnvRequire(import.meta.url);" },
  logLevel: 'warning',
});
