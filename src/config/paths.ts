import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors.js';

/**
 * The one directory holding profiles and export state. Explicit rather than conf's default,
 * so a cron job, `sudo -E` and a login shell all find the same one.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.CNV_CONFIG_DIR) return env.CNV_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'cnv');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'cnv');
}

/** The config directory and the variable its path comes from, for messages. */
export interface ConfigDirWhere {
  dir: string;
  /** CNV_CONFIG_DIR, XDG_CONFIG_HOME, HOME or APPDATA; unknown when a caller has only the path. */
  source?: string;
}

export function configDirWhere(env: NodeJS.ProcessEnv): ConfigDirWhere {
  const source = env.CNV_CONFIG_DIR
    ? 'CNV_CONFIG_DIR'
    : process.platform === 'win32' && env.APPDATA
      ? 'APPDATA'
      : env.XDG_CONFIG_HOME
        ? 'XDG_CONFIG_HOME'
        : 'HOME';
  return { dir: configDir(env), source };
}

const REFUSED: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EIO: 'an I/O error occurred',
};

/**
 * The error for a file of the config directory that cannot be used (`path`: the directory or
 * file tried): a path that is no directory (a file where a directory should be, a part that
 * cannot be made) is the environment's mistake, exit 2 (`config_dir_unusable`) naming the
 * variable it came from; a file system that refuses (permission, read-only, full) is exit 8.
 * Undefined for any other error.
 */
export function configDirError(err: unknown, path: string, where: ConfigDirWhere): CliError | undefined {
  let code = (err as NodeJS.ErrnoException | undefined)?.code;
  // A recursive mkdir on a read-only file system says ENOENT: the nearest directory that exists tells the truth.
  if (code === 'ENOENT') code = refusalAbove(path) ?? code;
  const from = where.source ? ` (from ${where.source})` : '';
  if (code === 'ENOTDIR' || code === 'ENOENT' || code === 'EEXIST') {
    const what = code === 'ENOENT' ? 'cannot be made' : 'is not a directory: a file stands at that path or above it';
    return new UsageError(
      `the config directory ${where.dir}${from} ${what} (${code} on ${path})`,
      'point CNV_CONFIG_DIR at a directory cnv may write to',
      'config_dir_unusable',
    );
  }
  if (code && code in REFUSED) {
    return new CliError(`cannot use ${path}, in the config directory ${where.dir}${from}: ${REFUSED[code]} (${code})`, {
      exitCode: ExitCode.localFile,
      code: code === 'ENOSPC' || code === 'EDQUOT' ? 'disk_full' : 'file_system_error',
      hint: 'fix its permissions or free space, or point CNV_CONFIG_DIR at a directory cnv may write to',
    });
  }
  return undefined;
}

/** Why the nearest existing directory above `path` cannot be written to (EROFS, EACCES), if it cannot. */
function refusalAbove(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if (!statSync(dir).isDirectory()) return undefined;
      accessSync(dir, constants.W_OK);
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return code === 'EROFS' || code === 'EACCES' || code === 'EPERM' ? code : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
