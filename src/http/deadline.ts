/**
 * The time limit of one attempt, as a signal that also follows `outer` (Ctrl-C); `release()` ends
 * it once the attempt is over. Not `AbortSignal.any([outer, AbortSignal.timeout(ms)])`: in Node 20
 * the timeout signal, held only weakly by the combined one, may be garbage collected before it
 * fires, and a server that never answers then holds the request until undici's own 300 s limit.
 */
export function attemptDeadline(ms: number, outer?: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  const follow = () => controller.abort(outer!.reason);
  if (outer?.aborted) follow();
  else outer?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', follow);
    },
  };
}

/**
 * undici's answer to one attempt, ended by the attempt's signal whatever undici does: undici
 * aborts a request only once it is written, so one queued behind a connection that never opens
 * (a proxy that never answers CONNECT) outlived --timeout and Ctrl-C. At the signal this rejects
 * with `reason()` (the signal's reason, or what the caller makes of it); an answer that comes
 * later has its body destroyed, so that its connection is not held.
 */
export function endedBy<T extends { body: { destroy(): unknown } }>(
  work: Promise<T>,
  signal: AbortSignal,
  reason: () => unknown,
): Promise<T> {
  let ended = false;
  work.then(
    (late) => ended && late.body.destroy(),
    () => {},
  );
  if (signal.aborted) {
    ended = true;
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      ended = true;
      reject(reason());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
