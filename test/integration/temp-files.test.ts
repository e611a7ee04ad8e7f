import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeLock } from '../../src/files/owner-lock.js';
import { removeDeadTemps, tempPathBeside } from '../../src/files/temp-files.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'cnv-temps-'));

describe('temporary files of dead processes (one sweep: export output, batch report, owner lock)', () => {
  it('removes those of a process gone beside that file, keeps those of a running one and of other files', () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const gone = join(dir, '.r.csv.cnv-2147480009-00000000.tmp');
    const running = join(dir, `.r.csv.cnv-${process.ppid}-11111111.tmp`);
    const mine = tempPathBeside(path);
    const other = join(dir, '.s.csv.cnv-2147480009-22222222.tmp');
    const notOurs = join(dir, '.r.csv.cnv-lock');
    for (const f of [gone, running, mine, other, notOurs]) writeFileSync(f, 'x');
    removeDeadTemps(path);
    expect(readdirSync(dir).sort()).toEqual([running, mine, other, notOurs].map((f) => basename(f)).sort());
  });

  it('removes a symbolic link by such a name, never what it points to; a directory by such a name stays', () => {
    const dir = tempDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep');
    const link = join(dir, '.out.ndjson.cnv-2147480001-deadbeef.tmp');
    symlinkSync(victim, link);
    const folder = join(dir, '.out.ndjson.cnv-2147480002-cafebabe.tmp');
    mkdirSync(folder);
    removeDeadTemps(join(dir, 'out.ndjson'));
    expect(existsSync(victim)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([folder, victim].map((f) => basename(f)).sort());
  });

  it('an owner lock sweeps the half-made locks of dead processes beside it, and makes its own by the same form', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.json.lock');
    const dead = join(dir, '.state.json.lock.cnv-2147480003-0badf00d.tmp');
    writeFileSync(dead, '{}');
    const lock = takeLock(path, () => new Error('held'));
    try {
      expect(readdirSync(dir)).toEqual(['state.json.lock']);
    } finally {
      await lock.release();
    }
  });

  it('a missing directory is no error', () => {
    expect(() => removeDeadTemps(join(tempDir(), 'nowhere', 'x'))).not.toThrow();
  });
});
