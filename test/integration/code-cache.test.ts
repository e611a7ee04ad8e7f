import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cacheFileName,
  compileCacheDir,
  MAX_CACHE_FILES,
  MAX_DIR_FILES,
  privateDir,
  readCache,
  writeCache,
} from '../../src/runtime/code-cache.js';

const temp = () => mkdtempSync(join(tmpdir(), 'cnv-code-cache-'));
const HASH = '0123456789abcdef';
const ours = (word: string) => cacheFileName(HASH, [word]);

describe('where the code caches go (src/runtime/code-cache.ts)', () => {
  it('CNV_COMPILE_CACHE names the directory or turns the cache off; else the user cache directory', () => {
    expect(compileCacheDir({ CNV_COMPILE_CACHE: 'off' })).toBeUndefined();
    expect(compileCacheDir({ CNV_COMPILE_CACHE: ' OFF ' })).toBeUndefined();
    expect(compileCacheDir({ CNV_COMPILE_CACHE: '/somewhere/cc' })).toBe('/somewhere/cc');
    // Relative: refused (it would be a folder in whatever directory cnv runs in).
    expect(compileCacheDir({ CNV_COMPILE_CACHE: 'cc' })).toBeUndefined();
    expect(compileCacheDir({ CNV_COMPILE_CACHE: './cc', HOME: '/home/u' })).toBeUndefined();
    if (process.platform !== 'win32') {
      expect(compileCacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/cnv/compile-cache');
      expect(compileCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/cnv/compile-cache');
      expect(compileCacheDir({ XDG_CACHE_HOME: 'xdg', HOME: '/home/u' })).toBe('/home/u/.cache/cnv/compile-cache');
    }
  });

  it('one file per command (its first two words), per bundle and Node.js version', () => {
    const prefix = `${HASH}-${process.version}-${process.arch}-`;
    expect(cacheFileName(HASH, ['contacts', 'get', '--email', 'a@b.c'])).toBe(`${prefix}contacts.get.v8`);
    expect(cacheFileName(HASH, ['--json', 'contacts', 'get'])).toBe(`${prefix}contacts.get.v8`);
    expect(cacheFileName(HASH, ['--help'])).toBe(`${prefix}root.v8`);
    expect(cacheFileName(HASH, ['api', '--', 'GET', '/v2/x'])).toBe(`${prefix}api.v8`);
    // Nothing from the command line reaches the name but lower-case words: no path, no dot-dot.
    expect(cacheFileName(HASH, ['../../etc', 'X', 'a/b', 'config'])).toBe(`${prefix}config.v8`);
  });
});

describe.skipIf(process.platform === 'win32')(
  'a code cache is code: only a private directory of this user holds one',
  () => {
    it('the directory is made private (0700)', () => {
      const dir = join(temp(), 'a', 'b');
      expect(privateDir(dir)).toBe(true);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    });

    it('a directory others may write into, or a symlink to one, is refused', () => {
      const open = join(temp(), 'open');
      mkdirSync(open, { mode: 0o777 });
      chmodSync(open, 0o777);
      expect(privateDir(open)).toBe(false);
      chmodSync(open, 0o775);
      expect(privateDir(open)).toBe(false);
      const real = join(temp(), 'real');
      mkdirSync(real, { mode: 0o700 });
      const link = join(temp(), 'link');
      symlinkSync(real, link);
      expect(privateDir(link)).toBe(false);
      const file = join(temp(), 'file');
      writeFileSync(file, '');
      expect(privateDir(file)).toBe(false);
    });

    it('reads a plain file it wrote only: not a symlink, not an empty one, not one whose digest fails', () => {
      const dir = temp();
      writeCache(dir, ours('real'), Buffer.from('bytes'), HASH);
      symlinkSync(join(dir, ours('real')), join(dir, 'link'));
      writeFileSync(join(dir, 'empty'), '');
      expect(readCache(join(dir, ours('real')))?.toString()).toBe('bytes');
      expect(readCache(join(dir, 'link'))).toBeUndefined();
      expect(readCache(join(dir, 'empty'))).toBeUndefined();
      expect(readCache(join(dir, 'none'))).toBeUndefined();
    });

    it('a cache damaged on disk (one bit) is refused and removed, not run: V8 does not check the bytes itself', () => {
      const dir = temp();
      const file = join(dir, ours('contacts'));
      writeCache(dir, ours('contacts'), Buffer.alloc(4096, 7), HASH);
      const bytes = readFileSync(file);
      bytes[3000] ^= 0x10;
      writeFileSync(file, bytes);
      expect(readCache(file)).toBeUndefined();
      expect(existsSync(file)).toBe(false);
    });
  },
);

describe('writing a cache: whole, private, bounded', () => {
  it('writes the file (0600) through a temporary one, which it does not leave behind', () => {
    const dir = temp();
    writeCache(dir, ours('contacts'), Buffer.from('cache'), HASH);
    expect(readdirSync(dir)).toEqual([ours('contacts')]);
    if (process.platform !== 'win32') expect(statSync(join(dir, ours('contacts'))).mode & 0o777).toBe(0o600);
  });

  it(`no more than ${MAX_CACHE_FILES} files of one bundle`, () => {
    const dir = temp();
    for (let i = 0; i < MAX_CACHE_FILES + 5; i++) writeCache(dir, ours(`c${i}`), Buffer.from('x'), HASH);
    expect(readdirSync(dir)).toHaveLength(MAX_CACHE_FILES);
    expect(existsSync(join(dir, ours(`c${MAX_CACHE_FILES}`)))).toBe(false);
  });

  it(`other bundles' files go when a week old, or oldest first past ${MAX_DIR_FILES} in all`, () => {
    const dir = temp();
    const old = Date.now() / 1000 - 8 * 24 * 3600;
    const other = (word: string) => cacheFileName('fedcba9876543210', [word]);
    writeFileSync(join(dir, other('stale')), 'x');
    utimesSync(join(dir, other('stale')), old, old);
    for (let i = 0; i < MAX_DIR_FILES; i++) {
      const file = join(dir, other(`other-${String(i).padStart(2, '0')}`));
      writeFileSync(file, 'x');
      const at = Date.now() / 1000 - 3600 + i;
      utimesSync(file, at, at);
    }
    writeCache(dir, ours('contacts'), Buffer.from('cache'), HASH);
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(MAX_DIR_FILES);
    expect(left).not.toContain(other('stale'));
    expect(left).not.toContain(other('other-00'));
    expect(left).toContain(other('other-01'));
    expect(left).toContain(ours('contacts'));
  });

  it('never counts or removes a file it did not write: CNV_COMPILE_CACHE may name a directory with other things in it', () => {
    const dir = temp();
    const old = Date.now() / 1000 - 30 * 24 * 3600;
    for (let i = 0; i < MAX_DIR_FILES + 10; i++) {
      writeFileSync(join(dir, `doc${i}.txt`), 'mine');
      utimesSync(join(dir, `doc${i}.txt`), old, old);
    }
    writeCache(dir, ours('contacts'), Buffer.from('cache'), HASH);
    const left = readdirSync(dir);
    expect(left.filter((f) => f.startsWith('doc'))).toHaveLength(MAX_DIR_FILES + 10);
    expect(left).toContain(ours('contacts'));
  });

  it('a temporary file a failed write left is removed (at once, or by a later run once stale), and never counts as a cache', () => {
    const dir = temp();
    const stale = join(dir, `${ours('old')}.tmp-99999`);
    writeFileSync(stale, 'half');
    const old = Date.now() / 1000 - 3600;
    utimesSync(stale, old, old);
    for (let i = 0; i < MAX_CACHE_FILES - 1; i++) writeFileSync(join(dir, `${ours(`t${i}`)}.tmp-${i}`), 'x');
    writeCache(dir, ours('contacts'), Buffer.from('cache'), HASH);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(dir, ours('contacts')))).toBe(true);
  });

  it('a directory that cannot be written is no error', () => {
    expect(() => writeCache(join(temp(), 'missing', 'dir'), ours('contacts'), Buffer.from('x'), HASH)).not.toThrow();
  });
});
