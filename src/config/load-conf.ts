import type Conf from 'conf';
import { writeRegularFileSync } from '../lib/regular-file.js';

/**
 * Imports conf, on first use only (it costs start-up time). Its atomically -> when-exit
 * dependency adds SIGINT/SIGTERM listeners on import that re-raise the signal; in the cnv
 * executable the runtime removes them (src/runtime/own-signals.ts).
 */
export async function loadConf(): Promise<typeof Conf> {
  return (keptConf ??= keeping((await import('conf')).default));
}

let keptConf: typeof Conf | undefined;

/**
 * conf whose one write never follows a symbolic link: conf's own (atomically) resolves a link
 * and replaces its target, so a link put where the config file or an export state belongs had
 * an unrelated file overwritten. Here a link (or a FIFO, a directory) at the path is refused by
 * name (ENOTREG: exit 8, `... is a symbolic link, not a regular file`), and the file is written
 * to a temporary file, fsynced and renamed (src/lib/regular-file.ts). Mode 0600: every conf
 * file of cnv is private.
 */
function keeping(Base: typeof Conf): typeof Conf {
  const Open = Base as unknown as new (...args: unknown[]) => object;
  class KeptConf extends Open {
    _write(value: unknown): void {
      const self = this as unknown as {
        path: string;
        _serialize(value: unknown): string;
      };
      writeRegularFileSync(self.path, self._serialize(value), { mode: 0o600, link: 'refuse' });
    }
  }
  return KeptConf as unknown as typeof Conf;
}
