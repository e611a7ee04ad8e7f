import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The one directory holding profiles and export state. Explicit rather than conf's default,
 * so a cron job, `sudo -E` and a login shell all find the same one.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.CNV_CONFIG_DIR) return env.CNV_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'cnv');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'cnv');
}
