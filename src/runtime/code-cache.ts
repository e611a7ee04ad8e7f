import { hash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { readRegularFileSync } from '../lib/regular-file.js';

/** Cache files kept per bundle and Node.js version: one per command run, and no more than this. */
export const MAX_CACHE_FILES = 24;
/** Files kept in the directory in all: others (other versions, other builds) go, oldest first. */
export const MAX_DIR_FILES = 48;
/** A cache file of another bundle or Node.js version is removed once this old (an upgrade left it). */
const STALE_MS = 7 * 24 * 3600 * 1000;
/** Larger than any cache of cnv's bundle (about 1 MB): not one of ours. */
const MAX_CACHE_BYTES = 64 * 2 ** 20;
/** A cache file of cnv's, or a temporary one being written: the only names this code ever counts or removes. */
const OUR_FILE = /^[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+-[a-z0-9.-]+\.v8(\.tmp-\d+)?$/;
/**
 * A file's first bytes: the SHA-1 of the rest. V8 in release builds does not check a cache's bytes,
 * and a damaged one crashes it.
 */
const DIGEST_BYTES = 20;
/** A temporary file older than this was left by a run that died writing it. */
const TEMP_STALE_MS = 60_000;

/**
 * Where the V8 code caches of the CLI bundle are kept: `CNV_COMPILE_CACHE=DIR`, off with
 * `CNV_COMPILE_CACHE=off`; by default the user's cache directory (`$XDG_CACHE_HOME/cnv`,
 * `~/.cache/cnv`; `%LOCALAPPDATA%\cnv` on Windows), beside nothing else of cnv's. A relative
 * CNV_COMPILE_CACHE is refused (no cache): it would name a folder in whatever directory cnv
 * runs in, `/` under cron. A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const asked = env.CNV_COMPILE_CACHE?.trim();
  if (asked?.toLowerCase() === 'off') return undefined;
  if (asked) return isAbsolute(asked) ? asked : undefined;
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'cnv', 'compile-cache');
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  return join(xdg || join(env.HOME || homedir(), '.cache'), 'cnv', 'compile-cache');
}

/**
 * The key of a bundle's caches: a digest of its bytes (about 1 ms for the 1.5 MB bundle). V8
 * checks only a source's length against a cache; a key taken from the hash written on the
 * bundle's first line at build time kept a bundle edited in place (a patch tool, a hot fix)
 * running its old code.
 */
export function bundleKey(bytes: Buffer): string {
  return hash('sha1', bytes, 'hex').slice(0, 16);
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

/**
 * The cache's bytes, if the file is a plain file of this user's of a plausible size whose
 * digest matches: one bit flipped on disk would make V8 run damaged code (a crash, or a command
 * that does something else), so a file that fails the check is removed and the bundle compiles.
 */
export function readCache(file: string): Buffer | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size <= DIGEST_BYTES || stat.size > MAX_CACHE_BYTES) return undefined;
    if (process.platform !== 'win32' && stat.uid !== process.getuid?.()) return undefined;
    // Never waited on: what took the file's place since (a FIFO) is refused.
    const bytes = readRegularFileSync(file, { nofollow: true });
    if (bytes.length > MAX_CACHE_BYTES) return undefined;
    const data = bytes.subarray(DIGEST_BYTES);
    if (!digestOf(data).equals(bytes.subarray(0, DIGEST_BYTES))) {
      rmSync(file, { force: true });
      return undefined;
    }
    return data;
  } catch {
    return undefined;
  }
}

function digestOf(data: Buffer): Buffer {
  // The one-shot hash: about 1 ms for a 1 MB cache, a small part of what the cache saves.
  return hash('sha1', data, 'buffer') as unknown as Buffer;
}

/**
 * Writes a cache file whole or not at all (a temporary file renamed over it, so a process
 * starting meanwhile reads no half of one), unless this bundle has its share of files already.
 * Files of other bundles or Node.js versions go when a week old, or sooner, oldest first, when
 * the directory holds too many (a developer's many builds). Best effort: a cache that cannot be
 * written is no error.
 */
export function writeCache(dir: string, name: string, data: Buffer, bundleHash: string): void {
  const temp = join(dir, `${name}.tmp-${process.pid}`);
  try {
    const prefix = versionPrefix(bundleHash);
    const others: Array<{ path: string; mtimeMs: number }> = [];
    let ours = 0;
    // Only cnv's own files are counted or removed: CNV_COMPILE_CACHE may name a directory that holds other things.
    for (const entry of readdirSync(dir)) {
      if (!OUR_FILE.test(entry)) continue;
      const path = join(dir, entry);
      const mtimeMs = lstatSync(path).mtimeMs;
      if (entry.includes('.tmp-')) {
        if (Date.now() - mtimeMs > TEMP_STALE_MS) rmSync(path, { force: true });
      } else if (entry.startsWith(prefix)) ours++;
      else others.push({ path, mtimeMs });
    }
    if (ours >= MAX_CACHE_FILES) return;
    others.sort((a, b) => a.mtimeMs - b.mtimeMs);
    others.forEach((file, i) => {
      if (Date.now() - file.mtimeMs > STALE_MS || ours + others.length - i >= MAX_DIR_FILES)
        rmSync(file.path, { force: true });
    });
    writeFileSync(temp, Buffer.concat([digestOf(data), data]), { mode: 0o600, flag: 'wx' });
    renameSync(temp, join(dir, name));
  } catch {
    // A cache is an optimisation: a full disk or a read-only home only costs the next start-up.
    rmSync(temp, { force: true });
  }
}
