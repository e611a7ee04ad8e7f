// Bundles the CLI for start-up speed (docs/startup.md):
// - dist/bundle/cnv.cjs and chunk-HASH.cjs: the whole CLI (our code, commander, conf, p-limit,
//   lossless-json, string-width, undici and the parts of zod it uses), split where a module is
//   imported when used (a command, undici, conf): cnv.cjs holds what every run runs, each chunk
//   what some commands share, so a run reads only what it runs. CommonJS scripts, which
//   bin/cnv.js compiles with a V8 code cache (src/runtime/load-bundle.ts), keyed by a digest of
//   each file as it is when it runs. The other dependencies stay external and are imported lazily.
// - dist/bundle/launcher.cjs: what bin/cnv.js needs before the CLI (the code cache, the answers
//   known at build time); dist/bundle/complete-fast.cjs: a shell TAB, without the CLI.
// - dist/bundle/launch.json: those answers (the version; the help a pipe gets);
//   dist/bundle/completion.json: the completion table.
import { build, transform } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buildInputsHash, STAMP } from './build-inputs.mjs';

// What this build is made from (tsc ran just before on the same files): recorded at the end.
const inputs = buildInputsHash(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['commander', 'conf', 'lossless-json', 'p-limit', 'string-width', 'undici', 'zod']);
const external = Object.keys(pkg.dependencies).filter((name) => !BUNDLED.has(name));

// zod's namespace re-exports its ~40 message locales (360 kB, half of zod once bundled) as
// `z.locales`; cnv only ever uses English, which zod registers by itself.
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'cnv-stub' } : undefined,
    );
    b.onLoad({ filter: /^zod-locales$/, namespace: 'cnv-stub' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: new URL('..', import.meta.url).pathname,
    }));
  },
};

// conf is bundled whole, with the ajv and semver it imports at its top: replacing them by stubs
// was worth ~2% of `cnv config set-url` in a same-run A/B (docs/startup.md), bundling conf at all
// ~47% (against importing it from node_modules), so it is bundled, through its public entry.

// Start-up work no command needs: undici's HTTP/2 client (loads node:http2 and node:tls, while
// cnv never enables allowH2, so it is never called), its fetch body machinery (~100 kB, used
// only for FormData request bodies, which cnv never sends), and commander's eager
// node:child_process (used only for executable subcommands, which cnv has none of; kept, but
// loaded on use).
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /[\\/]client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]/.test(args.importer) ? { path: 'undici-h2', namespace: 'cnv-stub' } : undefined,
    );
    b.onResolve({ filter: /[\\/]web[\\/]fetch[\\/]body\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer)
        ? { path: 'undici-form-body', namespace: 'cnv-stub' }
        : undefined,
    );
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child-process', namespace: 'cnv-stub' } : undefined,
    );
    b.onLoad({ filter: /^undici-h2$/, namespace: 'cnv-stub' }, () => ({
      contents: "module.exports = function connectH2() { throw new Error('HTTP/2 is not built into cnv'); };",
      loader: 'js',
    }));
    b.onLoad({ filter: /^undici-form-body$/, namespace: 'cnv-stub' }, () => ({
      contents:
        "module.exports = { extractBody() { throw new Error('FormData request bodies are not built into cnv'); } };",
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
const ZOD_UNUSED =
  /[\\/]zod[\\/]v4[\\/](core[\\/](json-schema-processors|to-json-schema|json-schema-generator|compile)|classic[\\/]from-json-schema)\.js$/;
const zodWithoutJsonSchema = {
  name: 'zod-without-json-schema',
  setup(b) {
    b.onLoad({ filter: ZOD_UNUSED }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const lines = [
        `const unavailable = (name) => () => { throw new Error('zod ' + name + ' is not built into cnv'); };`,
      ];
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

const dir = new URL('../dist/bundle/', import.meta.url);
// A fresh checkout has no dist/bundle/ yet (the CLI's build is not written by esbuild itself).
mkdirSync(dir, { recursive: true });

/** Writes a file whole or not at all: a process starting meanwhile reads the old one or the new one. */
function writeAtomic(url, text) {
  const temp = new URL(`${url.href}.tmp-${process.pid}`);
  writeFileSync(temp, text);
  renameSync(temp, url);
}

// The CLI, split where a command is imported: dist/bundle/cnv.cjs holds what every run runs (the
// program, the command tree, commander), each command and what only commands share go to chunks
// (chunk-HASH.cjs, cmd-NAME-HASH.cjs) that a run loads when it imports them. One file for all
// made every run read, digest and deserialise every command (esbuild declares each module's
// functions at the file's top level: thousands of closures made at start). esbuild splits only
// ES modules, so each file is then made a CommonJS script, since Node 20 has a code cache
// (vm.Script cachedData) for scripts only: src/runtime/load-bundle.ts compiles each with one.
const cli = await build({
  stdin: {
    contents:
      "export { run } from './src/main.ts'; export { applyRuntime } from './src/runtime/index.ts'; export { beforeEngineFlagsChange } from './src/runtime/engine-flags.ts'; export { InterruptedError, stdoutError } from './src/errors.ts';",
    resolveDir: new URL('..', import.meta.url).pathname,
    loader: 'ts',
    sourcefile: 'cnv-entry.ts',
  },
  outdir: 'dist/bundle',
  entryNames: 'cnv',
  chunkNames: 'chunk-[hash]',
  write: false,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [englishOnlyZod, lazyModules, zodWithoutJsonSchema],
  // The launcher gives each script its file's URL, and a way to import the external packages
  // (ES modules, which a script compiled by vm cannot import() itself).
  define: { 'import.meta.url': '__cnvUrl', CNV_BUNDLED_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
  metafile: true,
});
const files = new Map();
for (const out of cli.outputFiles) {
  const name = out.path.slice(out.path.lastIndexOf('/') + 1).replace(/\.js$/, '.cjs');
  // import and export between the files become require() and module.exports (the launcher's
  // require loads a sibling file, once); `import()` of one becomes a promise of its require().
  // The file's `// path` line before each module (what a stack trace or a profile is read by) is
  // kept as a legal comment through the transform, which drops the others.
  const marked = out.text.replace(/^\/\/ ((?:src|node_modules|cnv-stub)\S*)$/gm, '//! $1');
  let code = (await transform(marked, { format: 'cjs', platform: 'node', target: 'node20', legalComments: 'inline' }))
    .code;
  code = code
    .replace(/^\/\/! ((?:src|node_modules|cnv-stub)\S*)$/gm, '// $1')
    .replace(/\brequire\("\.\/([\w-]+)\.js"\)/g, 'require("./$1.cjs")')
    .replace(/\bimport\("\.\/([\w-]+)\.js"\)/g, 'Promise.resolve().then(() => require("./$1.cjs"))')
    // The exports object itself, not a copy of its getters: one getter a use of an import, not two.
    .replace(
      /^module\.exports = __toCommonJS\((\w+)\);$/m,
      'module.exports = __defProp($1, "__esModule", { value: true });',
    );
  // esbuild leaves `import("conf")` of an external package as it is: the launcher's import does it
  // (an ES module), and require() a built-in (at once; the ES module loader would take a few ms).
  code = code.replace(/\bimport\(("[^"./][^"]*")\)/g, (_, spec) =>
    spec.startsWith('"node:') ? `Promise.resolve().then(() => require(${spec}))` : `__cnvImport(${spec})`,
  );
  // Only comments may still hold non-ASCII (esbuild escapes it in code), so the launcher reads the
  // file as Latin-1, the cheap one-byte string that a code cache expects of it.
  code = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const meta = Object.entries(cli.metafile.outputs).find(([path]) => out.path.endsWith(path))?.[1];
  const statics = (meta?.imports ?? []).filter(
    (i) => i.external && !i.path.startsWith('node:') && i.kind !== 'dynamic-import',
  );
  if (statics.length)
    throw new Error(
      `dist/bundle/${name}: packages required at load, not bundled: ${statics.map((i) => i.path).join(', ')}`,
    );
  files.set(name, code);
}
// What every run evaluates (cnv.cjs and the chunks it requires at its top, in turn) is one file,
// cnv.cjs; each other chunk is a file of its own. A file defines its modules (`__cnvDefine`, the
// launcher's), each run when first required.
const core = new Set();
const reach = (name) => {
  if (core.has(name)) return;
  core.add(name);
  for (const m of files.get(name).matchAll(/(Promise\.resolve\(\)\.then\(\(\) => )?require\("\.\/([\w-]+\.cjs)"\)/g))
    if (!m[1]) reach(m[2]);
};
reach('cnv.cjs');
const defining = (names) =>
  `__cnvDefine({\n${names.map((n) => `${JSON.stringify(n)}: function (exports, require, module) {\n${files.get(n)}\n}`).join(',\n')}\n});\n`;
const written = [];
for (const [name, text] of [
  ['cnv.cjs', defining([...core])],
  ...[...files.keys()].filter((n) => !core.has(n)).map((n) => [n, defining([n])]),
]) {
  const bare = (await transform(text, { minifyWhitespace: true, format: 'cjs' })).code;
  if (/\bimport\(|\bimport\.meta\b/.test(bare))
    throw new Error(`dist/bundle/${name}: an import() or import.meta is left that a vm script cannot run`);
  writeAtomic(new URL(name, dir), text);
  written.push(name);
}
// CNV_BUNDLE_META=FILE: what the bundle holds (https://esbuild.github.io/analyze/), for start-up work.
if (process.env.CNV_BUNDLE_META) writeFileSync(process.env.CNV_BUNDLE_META, JSON.stringify(cli.metafile));

// The launcher's part and the TAB's: small files of their own, CommonJS like bin/cnv.js (an ES
// module would start Node's ES module loader, a few milliseconds of every run).
await build({
  entryPoints: { launcher: 'src/runtime/launcher.ts', 'complete-fast': 'src/cli/complete-fast.ts' },
  outdir: 'dist/bundle',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  define: { 'import.meta.url': '__cnvUrl' },
  banner: { js: "const __cnvUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});

// Files of earlier builds (the code-split chunks of earlier versions), but not in the middle of a
// process started from them a moment ago (it may still import one lazily).
const current = new Set([...written, 'launcher.cjs', 'complete-fast.cjs', 'launch.json', 'completion.json']);
for (const name of readdirSync(dir)) {
  const file = new URL(name, dir);
  if (!current.has(name) && Date.now() - statSync(file).mtimeMs > 60_000) rmSync(file, { force: true });
}

// The completion table: `cnv __complete` (run on every TAB) answers from it without loading a command.
const { completionTable } = await import('../dist/cli/completion-table.js');
writeAtomic(new URL('completion.json', dir), JSON.stringify(await completionTable()));

// What `cnv --version` and `cnv --help` print (the help as a pipe gets it, stdout not a terminal),
// from the program itself: the launcher prints them without loading it.
const { run } = await import('../dist/main.js');
const stdout = new PassThrough();
let help = '';
stdout.on('data', (c) => (help += c));
const io = {
  stdin: new PassThrough(),
  stdout,
  stderr: new PassThrough(),
  stdinIsTTY: false,
  stdoutIsTTY: false,
  stderrIsTTY: false,
};
if ((await run(['--help'], { io, env: {} })) !== 0) throw new Error('cnv --help failed at build time');
writeAtomic(new URL('launch.json', dir), JSON.stringify({ version: pkg.version, help }));

// Last: dist/ is now built from these inputs (scripts/build-if-stale.mjs reads it).
writeAtomic(new URL(`../../${STAMP}`, dir), `${inputs}\n`);
