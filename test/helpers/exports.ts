import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { parse } from 'csv-parse/sync';
import { beforeAll, expect } from 'vitest';
import { ExportStateStore } from '../../src/exporter/state-store.js';
import type { ExportState } from '../../src/exporter/export-state.js';
import { BIN, cnv } from './cli.js';
import { useEmulator } from './emulator.js';

/** A fresh directory for export output files. */
export function outDir(): string {
  return mkdtempSync(join(tmpdir(), 'cnv-export-'));
}

/** The saved state of a key in a config directory. */
export async function exportState(configDir: string, key: string): Promise<ExportState | undefined> {
  return (await ExportStateStore.open(configDir)).read(key);
}

export async function statePath(configDir: string, key: string): Promise<string> {
  return (await ExportStateStore.open(configDir)).pathOf(key);
}

/** The rows of an NDJSON file (or text). */
export function ndjsonRows(pathOrText: string): Array<Record<string, any>> {
  const text = existsSync(pathOrText) ? readFileSync(pathOrText, 'utf8') : pathOrText;
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** The records of a CSV file, header first, as a real parser reads them. */
export function csvRecords(path: string): string[][] {
  return parse(readFileSync(path, 'utf8'), { bom: true, relax_column_count: false });
}

/** Lines that occur more than once (a duplicated row). */
export function duplicates(lines: string[]): string[] {
  const seen = new Set<string>();
  return lines.filter((l) => (seen.has(l) ? true : (seen.add(l), false)));
}

/**
 * Runs `start()` again and again, SIGKILLing each run after a random delay that grows with the
 * attempt (`base + random() * spread + attempt * step` ms), until one run exits 0. Any run that
 * ends otherwise must have been killed. Returns whether a run finished and how many were killed.
 */
export async function killUntilDone(
  start: () => ResultPromise,
  random: () => number,
  { attempts, base, spread, step }: { attempts: number; base: number; spread: number; step: number },
): Promise<{ finished: boolean; kills: number }> {
  let kills = 0;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const child = start();
    const timer = setTimeout(() => child.kill('SIGKILL'), base + random() * spread + attempt * step);
    const res = await child;
    clearTimeout(timer);
    if (res.exitCode === 0) return { finished: true, kills };
    expect(res.signal, String(res.stderr)).toBe('SIGKILL');
    kills += 1;
  }
  return { finished: false, kills };
}

/**
 * The setup of the kill-and-resume files: one emulator without a rate limit (faults cleared before
 * each test), the clean CSV export every resumed file must equal, and how to start an export
 * into a file (7 pages of the ~2,000 demo contacts) through the built binary.
 */
export function resumableExports() {
  const fx = useEmulator({ rateLimit: 0 }, { faults: true });
  let reference = '';
  beforeAll(async () => {
    const clean = await cnv(['export', 'contacts', '--no-state', '-o', 'csv', '--quiet'], { env: fx.env });
    expect(clean.exitCode, clean.stderr).toBe(0);
    reference = clean.stdout;
  });
  return {
    fx,
    /** One clean export's CSV text. */
    reference: () => reference,
    args: (out: string, key: string, limit = '300') => [
      'export',
      'contacts',
      '--out',
      out,
      '--state-key',
      key,
      '--limit',
      limit,
    ],
    spawn: (argv: string[], env: Record<string, string> = {}): ResultPromise =>
      execa('node', [BIN, ...argv], { reject: false, env: { ...fx.env, ...env } }) as unknown as ResultPromise,
  };
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
