/**
 * The time limit of one attempt, as a signal that also follows `outer` (Ctrl-C); `release()` ends
 * it once the attempt is over. Not `AbortSignal.any([outer, AbortSignal.timeout(ms)])`: in Node 20
 * the timeout signal, held only weakly by the combined one, may be garbage collected before it
 * fires, and a server that never answers then holds the request until undici's own 300 s limit.
 */
export function attemptDeadline(ms: number, outer?: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
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
