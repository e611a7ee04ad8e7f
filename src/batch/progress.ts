import type { Clock } from '../clock.js';
import type { ProgressDisplay } from '../output/notices.js';
import type { BatchCounts } from './summary.js';

export interface Progress {
  /** Rows read from the input so far (the total once the whole input has been read). */
  setRead(rows: number): void;
  /** The total once the whole input has been read. */
  setTotal(total: number): void;
  stop(): void;
}

const NONE: Progress = { setRead() {}, setTotal() {}, stop() {} };

/**
 * A spinner on stderr: rows done, of how many (exact once the input was read, else estimated
 * from the share of the file's bytes read), the share done, rate, time left and failures so
 * far; nothing without a progress display.
 */
export async function startProgress(
  deps: { progress?: ProgressDisplay; clock: Clock },
  counts: BatchCounts,
  started: number,
  input?: {
    size?: number;
    bytesRead(): number;
  },
): Promise<Progress> {
  const display = deps.progress;
  if (!display) return NONE;
  const { default: ora } = await import('ora');
  const spinner = ora({
    stream: display.stream,
    isEnabled: true,
    discardStdin: false,
    color: display.color ? 'cyan' : false,
  }).start();
  const reading = { rows: 0, total: undefined as number | undefined };
  const render = () => {
    spinner.text = progressText(
      counts.rows,
      counts.count('failed') + counts.count('invalid'),
      deps.clock.now() - started,
      { ...reading, size: input?.size, bytes: input?.bytesRead() ?? 0 },
    );
  };
  const timer = setInterval(render, 200);
  timer.unref();
  render();
  return {
    setRead(n) {
      reading.rows = n;
    },
    setTotal(n) {
      reading.total = n;
    },
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}

/**
 * The progress line: `969 / ~1,000 rows (97%) · 192 rows/s · about 1s left · 0 failed or invalid`.
 * Until the input is read whole, the total is the rows read so far scaled by the file's share read
 * (`~`); without a size (stdin) there is no total, share or time left.
 */
export function progressText(
  done: number,
  bad: number,
  elapsedMs: number,
  read: {
    rows: number;
    total?: number;
    size?: number;
    bytes: number;
  },
): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? done / seconds : 0;
  const estimate =
    read.total ??
    (read.size && read.bytes > 0 && read.rows > 0
      ? Math.max(read.rows, Math.round((read.rows * read.size) / read.bytes))
      : undefined);
  const parts = [`${done.toLocaleString('en-US')} rows`];
  if (estimate !== undefined && estimate > 0) {
    const exact = read.total !== undefined;
    // An estimate never reads 100% before the last row is done.
    const share = Math.min(exact ? 100 : 99, Math.floor((done / estimate) * 100));
    parts[0] = `${done.toLocaleString('en-US')} / ${exact ? '' : '~'}${estimate.toLocaleString('en-US')} rows (${share}%)`;
  }
  parts.push(`${Math.round(rate)} rows/s`);
  if (estimate !== undefined && rate > 0 && seconds >= 1 && done < estimate)
    parts.push(`about ${timeLeft((estimate - done) / rate)} left`);
  parts.push(`${bad} failed or invalid`);
  return parts.join(' · ');
}

/** `45s`, `3m 10s`, `2h 5m`. */
function timeLeft(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
