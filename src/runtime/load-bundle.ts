import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { bundleKey, cacheFileName, compileCacheDir, privateDir, readCache, writeCache } from './code-cache.js';

/** What the CLI bundle (dist/bundle/cnv.cjs) exports to the launcher. */
interface CliBundle {
  run: typeof import('../main.js').run;
  applyRuntime: typeof import('./index.js').applyRuntime;
  beforeEngineFlagsChange: typeof import('./engine-flags.js').beforeEngineFlagsChange;
  InterruptedError: typeof import('../errors.js').InterruptedError;
  stdoutError: typeof import('../errors.js').stdoutError;
}

/** A module of the bundle, as a file defines it (scripts/bundle.mjs). */
type Factory = (exports: unknown, require: (specifier: string) => unknown, module: { exports: unknown }) => void;

/** One file of the bundle as this run compiled it. */
interface Loaded {
  name: string;
  key: string;
  script: vm.Script;
  hit: boolean;
}

/**
 * Compiles and runs the CLI bundle with a V8 code cache. Node 20 has none of its own for
 * anything cnv could ship (`module.enableCompileCache` came in Node 22.1), so the bundle is
 * CommonJS scripts compiled here with `vm.Script`: with `cachedData` V8 skips parsing and
 * compiling every function the cache holds (the cache is taken after a whole run, so it holds
 * what the command used). The bundle is `file` (dist/bundle/cnv.cjs) and the chunks beside it
 * that it requires by their names (scripts/bundle.mjs splits it where a command is imported), each
 * loaded when first required, so that a run reads, digests and deserialises only what it runs.
 * A run's cache is one file (its command's) holding each file's cache under the file's name and
 * key. V8 checks a cache (its version, its flags, the source's length); the key is a digest of
 * the file's bytes as read (code-cache.ts `bundleKey`), so that no cache is ever used with
 * another source of the same length, an edit in place included. Without a usable cache a file
 * compiles as any script does.
 */
export function loadBundle(
  file: string,
  env: NodeJS.ProcessEnv,
  argv: readonly string[],
  importer: (specifier: string) => Promise<unknown>,
): {
  cli: CliBundle;
  /** After the run: keeps what it compiled for the next run of the command, when a file had no usable cache. */
  saveCache(exitCode: number): void;
} {
  const folder = dirname(file);
  const nodeRequire = createRequire(file);
  const dir = compileCacheDir(env);
  const usable = dir !== undefined && privateDir(dir);
  const entry = readFileSync(file);
  const entryKey = bundleKey(entry);
  const name = cacheFileName(entryKey, argv);
  const cached = usable ? unpack(readCache(join(dir, name))) : new Map<string, { key: string; data: Buffer }>();
  const loaded: Loaded[] = [];
  let probe: Buffer | undefined;
  const factories = new Map<string, Factory>();
  const modules = new Map<string, { exports: unknown }>();

  // Compiles and runs one file: it defines its modules (`__cnvDefine`).
  const compile = (chunk: string, bytes: Buffer, key: string): void => {
    const path = join(folder, chunk);
    // Pure ASCII (scripts/bundle.mjs makes sure): Latin-1 reads it as the one-byte string V8 keeps it in.
    const source = bytes.toString('latin1');
    const wrapped = `(function (__cnvDefine, __filename, __dirname, __cnvUrl, __cnvImport) {${source}\n})`;
    const mine = cached.get(chunk);
    const cachedData = mine?.key === key ? mine.data : undefined;
    const script = new vm.Script(wrapped, { filename: path, cachedData });
    const hit = cachedData !== undefined && !script.cachedDataRejected;
    loaded.push({ name: chunk, key, script, hit });
    // A cache records V8's flags, and the next run starts under the launcher's: a run that changed
    // them (an export sizes its heap) would leave a cache the next run refuses. A cache of an empty
    // script, taken at the first file compiled without one and tried when saving, tells whether
    // the flags are still those of then.
    if (usable && !hit) probe ??= new vm.Script('', { filename: `${file}?flags` }).createCachedData();
    const define = (defined: Record<string, Factory>) => {
      for (const [name, factory] of Object.entries(defined)) factories.set(name, factory);
    };
    script.runInThisContext()(define, path, folder, pathToFileURL(path).href, importer);
  };
  // A module of the bundle, run once when first required; a file of its own unless one read before defined it.
  const require = (specifier: string): unknown => {
    const sibling = /^\.\/([\w-]+\.cjs)$/.exec(specifier)?.[1];
    if (sibling === undefined) return nodeRequire(specifier);
    const known = modules.get(sibling);
    if (known) return known.exports;
    if (!factories.has(sibling)) {
      const bytes = readFileSync(join(folder, sibling));
      compile(sibling, bytes, bundleKey(bytes));
    }
    const module = { exports: {} };
    modules.set(sibling, module);
    factories.get(sibling)!(module.exports, require, module);
    return module.exports;
  };

  let saved = false;
  compile(basename(file), entry, entryKey);
  const cli = require(`./${basename(file)}`) as CliBundle;
  return {
    cli,
    saveCache(exitCode) {
      // Not after a bug, a usage error (a mistyped command is not worth a file) or an interruption.
      if (!usable || saved || exitCode === 1 || exitCode === 2 || exitCode >= 128) return;
      // Once a run: a file loaded after an export changed V8's flags would be compiled under them.
      saved = true;
      if (loaded.every((l) => l.hit)) return;
      try {
        // Tried under another name: V8 would find the script compiled above by its name and source
        // in its own table, and not look at the data at all.
        if (new vm.Script('', { filename: `${file}?flags-now`, cachedData: probe }).cachedDataRejected) return;
        writeCache(dir, name, pack(loaded), entryKey);
      } catch {
        // An optimisation only.
      }
    },
  };
}

/** The files' caches in one buffer: for each, its name and key (ASCII, a line each) and its data's length, then the data. */
function pack(loaded: Loaded[]): Buffer {
  const parts = loaded.map((l) => ({ head: `${l.name}\n${l.key}\n`, data: l.script.createCachedData() }));
  const index = `${parts.map((p) => `${p.head}${p.data.length}\n`).join('')}\n`;
  return Buffer.concat([Buffer.from(index, 'latin1'), ...parts.map((p) => p.data)]);
}

/** What `pack` wrote, by file name; nothing for anything else (a cache of an older layout is not used). */
function unpack(bytes: Buffer | undefined): Map<string, { key: string; data: Buffer }> {
  const files = new Map<string, { key: string; data: Buffer }>();
  if (bytes === undefined) return files;
  const end = bytes.indexOf('\n\n');
  if (end < 0) return files;
  const lines = bytes.subarray(0, end).toString('latin1').split('\n');
  if (lines.length % 3 !== 0) return files;
  let at = end + 2;
  for (let i = 0; i + 2 < lines.length; i += 3) {
    const length = Number(lines[i + 2]);
    if (!/^[\w-]+\.cjs$/.test(lines[i]) || !Number.isSafeInteger(length) || at + length > bytes.length)
      return new Map();
    files.set(lines[i], { key: lines[i + 1], data: bytes.subarray(at, at + length) });
    at += length;
  }
  return files;
}
