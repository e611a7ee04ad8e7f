import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readyFileError } from '../../src/commands/emulator/emulator.js';
import { DEMO_KEYS } from '../../src/emulator/index.js';
import { readyFileText, removeReadyFile, writeReadyFile } from '../../src/emulator/ready-file.js';
import { LocalFileError, UsageError } from '../../src/errors.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('ready file', () => {
  it('holds NAME=value lines a shell sources unquoted', () => {
    expect(readyFileText({ url: 'http://[::1]:4010', keys: DEMO_KEYS })).toBe(
      `CNV_BASE_URL=http://[::1]:4010\nCNV_API_KEY=${DEMO_KEYS.full}\nCNV_EMULATOR_KEY_LIMITED=${DEMO_KEYS.limited}\nCNV_EMULATOR_KEY_BASIC=${DEMO_KEYS.basic}\n`,
    );
    expect(() => readyFileText({ url: 'http://x; rm -rf ~', keys: DEMO_KEYS })).toThrow(/not a plain value/);
  });

  it('is replaced whole, leaves no temporary file, replaces a symlink instead of writing through it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-ready-unit-'));
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep me');
    const path = join(dir, 'emulator.env');
    symlinkSync(victim, path);
    await writeReadyFile(path, 'A=1\n');
    expect(readFileSync(path, 'utf8')).toBe('A=1\n');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(readdirSync(dir).sort()).toEqual(['emulator.env', 'victim']);
  });

  it('is removed on the way out only while it still holds what was written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-ready-unit-'));
    const path = join(dir, 'emulator.env');
    await writeReadyFile(path, 'A=1\n');
    await removeReadyFile(path, 'A=1\n');
    expect(readdirSync(dir)).toEqual([]);
    await writeReadyFile(path, 'A=2\n'); // another emulator's
    await removeReadyFile(path, 'A=1\n');
    expect(readFileSync(path, 'utf8')).toBe('A=2\n');
  });

  it('a write failure is exit 8 for the disk, exit 2 for a path that cannot be a file', () => {
    for (const code of ['ENOSPC', 'EACCES', 'EROFS']) {
      const err = readyFileError(errno(code), '/x/emulator.env');
      expect(err).toBeInstanceOf(LocalFileError);
      expect((err as LocalFileError).exitCode).toBe(8);
      expect((err as LocalFileError).message).toContain('cannot write the ready file /x/emulator.env');
    }
    expect(readyFileError(errno('ENOENT'), '/x/e.env')).toEqual(
      new UsageError('--ready-file /x/e.env: its directory does not exist (ENOENT)'),
    );
    expect((readyFileError(errno('EISDIR'), '/x') as UsageError).message).toBe(
      '--ready-file /x: is a directory (EISDIR)',
    );
  });
});
