/**
 * Lets the event loop run (a SIGINT or SIGTERM listener among what waits), then throws the
 * signal's reason if it fired: a long synchronous loop (the lines of a big map file, the
 * columns of a wide header) calls it every few thousand steps, so a signal stops it at once.
 */
export async function turn(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}
