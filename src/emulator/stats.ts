/** A snapshot of /v2 traffic, as served by GET /_emulator/stats. */
interface StatsSnapshot {
  total: number;
  rateLimited: number;
  dropped: number;
  /** `METHOD /v2/pattern` -> count (unrouted paths count as `METHOD (unmatched)`). */
  byRoute: Record<string, number>;
  /** HTTP status (or `dropped`) -> count. */
  byStatus: Record<string, number>;
  /** `METHOD /v2/pattern` -> status -> count. */
  byRouteStatus: Record<string, Record<string, number>>;
  /** `METHOD /v2/pattern` -> requests that arrived, finished or not (the others count when they finish). */
  startedByRoute: Record<string, number>;
}

/** Counts /v2 requests for tests (how many retries did the client make, and so on). */
export class Stats {
  private data: StatsSnapshot = empty();

  /** Records a /v2 request as it arrives, before any latency fault holds it. */
  start(routeKey: string): void {
    const started = this.data.startedByRoute;
    started[routeKey] = (started[routeKey] ?? 0) + 1;
  }

  /** Records one finished /v2 request. */
  record(routeKey: string, outcome: number | 'dropped'): void {
    const d = this.data;
    const status = String(outcome);
    d.total += 1;
    if (outcome === 429) d.rateLimited += 1;
    if (outcome === 'dropped') d.dropped += 1;
    d.byRoute[routeKey] = (d.byRoute[routeKey] ?? 0) + 1;
    d.byStatus[status] = (d.byStatus[status] ?? 0) + 1;
    const perRoute = (d.byRouteStatus[routeKey] ??= {});
    perRoute[status] = (perRoute[status] ?? 0) + 1;
  }

  snapshot(): StatsSnapshot {
    return structuredClone(this.data);
  }

  reset(): void {
    this.data = empty();
  }
}

function empty(): StatsSnapshot {
  return { total: 0, rateLimited: 0, dropped: 0, byRoute: {}, byStatus: {}, byRouteStatus: {}, startedByRoute: {} };
}
