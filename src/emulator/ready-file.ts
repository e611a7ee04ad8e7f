import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readRegularFile } from '../lib/regular-file.js';
import type { DemoKeys } from './keys.js';

/** A value a shell can source unquoted and `$GITHUB_ENV` or `docker --env-file` take as is. */
const PLAIN_VALUE = /^[A-Za-z0-9_:/.[\]%-]+$/;

/**
 * The text of `cnv emulator --ready-file`: one `NAME=value` line per variable, which a shell
 * sources (`set -a; . FILE; set +a`), GitHub Actions reads from `$GITHUB_ENV` and docker from
 * `--env-file`. CNV_BASE_URL and CNV_API_KEY (the full-access key) are what cnv reads.
 */
export function readyFileText(emu: { url: string; keys: DemoKeys }): string {
  const vars: Array<[string, string]> = [
    ['CNV_BASE_URL', emu.url],
    ['CNV_API_KEY', emu.keys.full],
    ['CNV_EMULATOR_KEY_LIMITED', emu.keys.limited],
    ['CNV_EMULATOR_KEY_BASIC', emu.keys.basic],
  ];
  for (const [name, value] of vars) {
    // Never reached with the emulator's own URL and keys; a quote or space would break the sourcing shell.
    if (!PLAIN_VALUE.test(value)) throw new Error(`ready file: ${name} is not a plain value`);
  }
  return vars.map(([name, value]) => `${name}=${value}\n`).join('');
}

/**
 * Writes the file whole or not at all: a new file beside `path`, renamed over it, so a script
 * polling for `path` never reads half of it (and a symlink at `path` is replaced, not followed).
 */
export async function writeReadyFile(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { flag: 'wx' });
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Removes the ready file on the way out, unless something else has replaced it since. */
export async function removeReadyFile(path: string, text: string): Promise<void> {
  const current = await readRegularFile(path).then(
    (bytes) => bytes.toString('utf8'),
    () => undefined,
  );
  if (current === text) await unlink(path).catch(() => {});
}
