import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

/**
 * Compiles and runs the CLI bundle with a V8 code cache. Node 20 has none of its own for
 * anything cnv could ship (`module.enableCompileCache` came in Node 22.1), so the bundle is one
 * CommonJS script compiled here with `vm.Script`: with `cachedData` V8 skips parsing and
 * compiling every function the cache holds (the cache is taken after a whole run, so it holds
 * what the command used). The cache is checked by V8 (its version, its flags, the source's
 * length) and keyed by a digest of the bundle's bytes as read (code-cache.ts `bundleKey`), so
 * that no cache is ever used with another source of the same length, an edit in place
 * included. Without a usable cache the bundle compiles as any script does.
 */
export function loadBundle(
  file: string,
  env: NodeJS.ProcessEnv,
  argv: readonly string[],
  importer: (specifier: string) => Promise<unknown>,
): {
  cli: CliBundle;
  /** After the run: keeps what it compiled for the next run of the command, when there was no usable cache. */
  saveCache(exitCode: number): void;
} {
  const bytes = readFileSync(file);
  // Pure ASCII (scripts/bundle.mjs makes sure): Latin-1 reads it as the one-byte string V8 keeps it in.
  const source = bytes.toString('latin1');
  const hash = bundleKey(bytes);
  const wrapped = `(function (exports, require, module, __filename, __dirname, __cnvUrl, __cnvImport) {${source}\n})`;
  const dir = compileCacheDir(env);
  const usable = dir !== undefined && privateDir(dir);
  const name = cacheFileName(hash, argv);
  const cachedData = usable ? readCache(join(dir, name)) : undefined;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const hit = cachedData !== undefined && !script.cachedDataRejected;
  // A cache records V8's flags, and the next run starts under the launcher's: a run that changed
  // them (an export sizes its heap) would leave a cache the next run refuses. A cache of an empty
  // script, taken now and tried when saving, tells whether the flags are still those of the start.
  const probe = usable && !hit ? new vm.Script('', { filename: `${file}?flags` }).createCachedData() : undefined;
  let saved = false;
  const module = { exports: {} as CliBundle };
  script.runInThisContext()(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    pathToFileURL(file).href,
    importer,
  );
  return {
    cli: module.exports,
    saveCache(exitCode) {
      // Not after a bug, a usage error (a mistyped command is not worth a file) or an interruption.
      if (!usable || hit || saved || exitCode === 1 || exitCode === 2 || exitCode >= 128) return;
      saved = true;
      try {
        // Tried under another name: V8 would find the script compiled above by its name and source
        // in its own table, and not look at the data at all.
        if (new vm.Script('', { filename: `${file}?flags-now`, cachedData: probe }).cachedDataRejected) return;
        writeCache(dir, name, script.createCachedData(), hash);
      } catch {
        // An optimisation only.
      }
    },
  };
}
