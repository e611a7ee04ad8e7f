import type { AdminRouter } from '../router.js';

/** The readiness probe: answers while the emulator listens, with no key and whatever the Host. */
export const HEALTH_PATH = '/_emulator/health';

/** `GET /_emulator/health` → `{ "ok": true }`, for CI scripts and container health checks. */
export function healthRoutes(router: AdminRouter): void {
  router.add('GET', HEALTH_PATH, () => ({ body: { ok: true } }));
}
