import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Cache files kept per bundle and Node.js version: one per command run, and no more than this. */
export const MAX_CACHE_FILES = 24;
/** Files kept in the directory in all: others (other versions, other builds) go, oldest first. */
export const MAX_DIR_FILES = 48;
/** A cache file of another bundle or Node.js version is removed once this old (an upgrade left it). */
const STALE_MS = 7 * 24 * 3600 * 1000;
/** Larger than any cache of cnv's bundle (about 1 MB): not one of ours. */
const MAX_CACHE_BYTES = 64 * 2 ** 20;

/**
 * Where the V8 code caches of the CLI bundle are kept: `CNV_COMPILE_CACHE=DIR`, off with
 * `CNV_COMPILE_CACHE=off`; by default the user's cache directory (`$XDG_CACHE_HOME/cnv`,
 * `~/.cache/cnv`; `%LOCALAPPDATA%\cnv` on Windows), beside nothing else of cnv's.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const asked = env.CNV_COMPILE_CACHE?.trim();
  if (asked?.toLowerCase() === 'off') return undefined;
  if (asked) return asked;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'cnv', 'compile-cache');
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'cnv', 'compile-cache');
}

/**
 * The cache file of a bundle (its hash), under this Node.js, for this command line: each
 * command compiles other functions, and a cache holds those its first run compiled. The command
 * is told by its first two words (`contacts.get`); option values may count as words, which only
 * makes another file.
 */
export function cacheFileName(bundleHash: string, argv: readonly string[]): string {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg === '--' || words.length === 2) break;
    if (/^[a-z][a-z0-9-]{0,39}$/.test(arg)) words.push(arg);
  }
  return `${versionPrefix(bundleHash)}${words.join('.') || 'root'}.v8`;
}

const versionPrefix = (bundleHash: string) => `${bundleHash}-${process.version}-${process.arch}-`;

/**
 * Makes the directory if needed, and tells whether it is safe to run code cached in it: a real
 * directory (not a symlink) of this user that no one else may write into. A code cache is code:
 * one planted by another user would run as this one.
 */
export function privateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The cache file's bytes, if it is a plain file of this user's of a plausible size. */
export function readCache(file: string): Buffer | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size === 0 || stat.size > MAX_CACHE_BYTES) return undefined;
    if (process.platform !== 'win32' && stat.uid !== process.getuid?.()) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes a cache file whole or not at all (a temporary file renamed over it, so a process
 * starting meanwhile reads no half of one), unless this bundle has its share of files already.
 * Files of other bundles or Node.js versions go when a week old, or sooner, oldest first, when
 * the directory holds too many (a developer's many builds). Best effort: a cache that cannot be
 * written is no error.
 */
export function writeCache(dir: string, name: string, data: Buffer, bundleHash: string): void {
  try {
    const prefix = versionPrefix(bundleHash);
    const others: Array<{ path: string; mtimeMs: number }> = [];
    let ours = 0;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(prefix)) ours++;
      else others.push({ path: join(dir, entry), mtimeMs: lstatSync(join(dir, entry)).mtimeMs });
    }
    if (ours >= MAX_CACHE_FILES) return;
    others.sort((a, b) => a.mtimeMs - b.mtimeMs);
    others.forEach((file, i) => {
      if (Date.now() - file.mtimeMs > STALE_MS || ours + others.length - i >= MAX_DIR_FILES) rmSync(file.path, { force: true });
    });
    const temp = join(dir, `${name}.tmp-${process.pid}`);
    writeFileSync(temp, data, { mode: 0o600 });
    renameSync(temp, join(dir, name));
  } catch {
    // A cache is an optimisation: a full disk or a read-only home only costs the next start-up.
  }
}
