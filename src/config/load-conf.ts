import type Conf from 'conf';

/**
 * Imports conf without the SIGINT/SIGTERM listeners its atomically -> when-exit dependency adds
 * on import: they re-raise the signal at once, which would cut short the launcher's own handling
 * (finish or abandon the work in flight, print the summary, release locks, exit 130/143).
 * conf's writes are synchronous, so no signal handler can run in the middle of one anyway.
 */
export async function loadConf(): Promise<typeof Conf> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: ConfClass } = await import('conf');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.off(s, listener);
  }
  return ConfClass;
}
