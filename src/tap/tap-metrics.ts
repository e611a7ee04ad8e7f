import type { HttpClient } from '../http/client.js';
import { metricLine } from '../singer/singer-metric.js';

/** How often a stream's record count is logged while it runs (the SDK's interval). */
const RECORD_COUNT_EVERY_MS = 60_000;

interface StreamCounts {
  /** The run's RECORD count when the stream started. */
  base: number;
  records: number;
  /** Rows read that no earlier run delivered (each makes a RECORD per output, unless start_date or a rewind leaves it out). */
  rows: number;
  /** Records already logged in a record_count METRIC (the SDK logs the count since the last). */
  logged: number;
  pages: number;
  requests: number;
  startedAt: number;
  loggedAt: number;
}

/**
 * What a run tells on stderr of its work (docs/singer.md, "Logs and metrics"): METRIC lines as
 * the Meltano SDK writes them (`INFO METRIC: {...}`, the Singer spec's form: `record_count` per
 * stream, every minute and at its end; `http_request_duration` per request), and a summary line
 * per stream at its end. Requests are the stream's that runs when they are sent (streams run
 * one after another).
 */
export class TapMeter {
  private readonly streams = new Map<string, StreamCounts>();
  private current: string | undefined;

  constructor(
    private readonly info: (line: string) => void,
    private readonly now: () => number,
    /** The RECORD lines the run wrote so far (SingerOut's count). */
    private readonly written: () => number,
    private readonly pid = process.pid,
  ) {}

  /** Watches the client's requests: one http_request_duration each. */
  watch(http: HttpClient): void {
    http.watch(({ path, status, ms }) => {
      const counts = this.current === undefined ? undefined : this.streams.get(this.current);
      if (counts) counts.requests++;
      const ok = typeof status === 'number' && status >= 200 && status < 300;
      this.metric('timer', 'http_request_duration', Number((ms / 1000).toFixed(6)), {
        ...(this.current === undefined ? {} : { stream: this.current }),
        endpoint: path,
        http_status_code: typeof status === 'number' ? status : null,
        status: ok ? 'succeeded' : 'failed',
      });
    });
  }

  /** A stream starts: what follows is counted for it. */
  start(stream: string): void {
    const at = this.now();
    this.current = stream;
    this.streams.set(stream, {
      base: this.written(),
      records: 0,
      rows: 0,
      logged: 0,
      pages: 0,
      requests: 0,
      startedAt: at,
      loggedAt: at,
    });
  }

  /** After a page of the stream at hand, with its fresh rows (a record_count METRIC once a minute). */
  page(fresh: number): void {
    const counts = this.counts();
    counts.pages++;
    counts.rows += fresh;
    counts.records = this.written() - counts.base;
    if (this.now() - counts.loggedAt >= RECORD_COUNT_EVERY_MS) this.logCount(counts);
  }

  /**
   * The stream at hand ends: its last record_count and its summary line, which says how many rows
   * start_date (or a rewound bookmark) left out, when some were. `outputs`: RECORDs per row (stream maps' copies).
   */
  end(outputs = 1): void {
    const counts = this.counts();
    const records = (counts.records = this.written() - counts.base);
    this.logCount(counts);
    const seconds = (this.now() - counts.startedAt) / 1000;
    const left = outputs > 0 ? counts.rows - Math.round(records / outputs) : 0;
    this.info(
      `${this.current}: ${plural(records, 'record')}, ${plural(counts.pages, 'page')}, ` +
        `${plural(counts.requests, 'request')}, ${seconds.toFixed(1)} s` +
        (left > 0
          ? `; ${plural(left, 'row')} older than start_date (or the state's replication_key_value) not emitted`
          : ''),
    );
    this.current = undefined;
  }

  private counts(): StreamCounts {
    const counts = this.current === undefined ? undefined : this.streams.get(this.current);
    if (!counts) throw new Error('TapMeter: no stream started');
    return counts;
  }

  private logCount(counts: StreamCounts): void {
    this.metric('counter', 'record_count', counts.records - counts.logged, { stream: this.current });
    counts.logged = counts.records;
    counts.loggedAt = this.now();
  }

  private metric(type: 'counter' | 'timer', metric: string, value: number, tags: Record<string, unknown>): void {
    this.info(metricLine(type, metric, value, tags, this.pid));
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
