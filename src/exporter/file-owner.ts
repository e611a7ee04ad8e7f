import { rmSync } from 'node:fs';
import { readRegularFileSync, writeRegularFileSync } from '../lib/regular-file.js';
import { LocalFileError, UsageError } from '../errors.js';
import { fileRecordBase } from './lock.js';

const ownerPath = (configDir: string, fileId: string) => `${fileRecordBase(configDir, fileId)}.owner`;

/**
 * Which export state writes an output file, by device and inode, beside its lock. A state that
 * resumes a file another state has since started or taken over with --full is refused before
 * anything is cut: the bytes after its committed length are the other state's. Call under the
 * file's lock.
 */
export function checkFileOwner(configDir: string, fileId: string, key: string, path: string): void {
  let owner: string | undefined;
  try {
    owner = (JSON.parse(readRegularFileSync(ownerPath(configDir, fileId)).toString('utf8')) as { key?: string }).key;
  } catch (err) {
    // Something that is no file at the record's path: refused, never waited on.
    const notFile =
      (err as NodeJS.ErrnoException).code === 'ENOTREG'
        ? LocalFileError.from(err, 'output file record', ownerPath(configDir, fileId))
        : undefined;
    if (notFile) throw notFile;
    return; // none yet: the state's own checks (device, inode, committed tail) decide
  }
  if (owner !== undefined && owner !== key) {
    throw new UsageError(
      `--out ${path} is written by export state "${owner}" now ` +
        `(it started the file or took it over with --full); export state "${key}" would cut or mix its rows`,
      'give this export another --out (it continues from its saved cursor), or --full to take the file back',
      'file_taken',
    );
  }
}

/** Records `key` as the state that writes the file (once the file passed every check, before a byte is written). */
export function claimFile(configDir: string, fileId: string, key: string): void {
  const at = ownerPath(configDir, fileId);
  try {
    writeRegularFileSync(at, JSON.stringify({ key }), { mode: 0o600, link: 'refuse' });
  } catch (err) {
    throw LocalFileError.from(err, 'output file record', at) ?? err;
  }
}

/**
 * Forgets the record of a file `key` wrote that is gone (removed unused), so a later file with
 * that inode is not taken for it.
 */
export function releaseFile(configDir: string, fileId: string, key: string): void {
  const at = ownerPath(configDir, fileId);
  try {
    if ((JSON.parse(readRegularFileSync(at).toString('utf8')) as { key?: string }).key === key)
      rmSync(at, { force: true });
  } catch {
    // no record, or unreadable: nothing to forget
  }
}
