import type Conf from 'conf';

/**
 * Imports conf, on first use only (it costs start-up time). Its atomically -> when-exit
 * dependency adds SIGINT/SIGTERM listeners on import that re-raise the signal; in the cnv
 * executable the runtime removes them (src/runtime/own-signals.ts).
 */
export async function loadConf(): Promise<typeof Conf> {
  return (await import('conf')).default;
}
