const OWNED = ['SIGINT', 'SIGTERM'] as const;

/**
 * From now on, SIGINT and SIGTERM belong to the listeners already installed (the launcher's):
 * any a dependency adds later is removed. conf's atomically -> when-exit adds them on import,
 * and they re-raise the signal at once, which the launcher would take for a second Ctrl-C and
 * exit without finishing its own handling (abandon the work in flight, print the summary,
 * release locks, exit 130/143). conf's writes are synchronous, so no signal handler could run
 * in the middle of one anyway.
 */
export function ownSignals(): void {
  const ours = new Set<unknown>(OWNED.flatMap((signal) => process.listeners(signal)));
  process.on('newListener', (event: string | symbol, listener: unknown) => {
    if (!(OWNED as readonly unknown[]).includes(event) || ours.has(listener)) return;
    // 'newListener' comes just before the listener is added: remove it once it is there.
    queueMicrotask(() => process.off(event as NodeJS.Signals, listener as () => void));
  });
}
