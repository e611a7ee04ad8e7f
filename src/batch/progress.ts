import type { Context } from '../context.js';
import type { BatchCounts } from './summary.js';

export interface Progress {
  /** The total once the whole input has been read. */
  setTotal(total: number): void;
  stop(): void;
}

const NONE: Progress = { setTotal() {}, stop() {} };

/** A spinner on stderr with rows done / total, rate and failures so far; nothing unless ctx.showProgress(). */
export async function startProgress(ctx: Context, counts: BatchCounts, started: number): Promise<Progress> {
  if (!ctx.showProgress()) return NONE;
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: ctx.io.stderr, isEnabled: true, discardStdin: false, color: ctx.globals.color ? 'cyan' : false }).start();
  let total: number | undefined;
  const render = () => {
    const seconds = (ctx.clock.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(counts.rows / seconds) : 0;
    const bad = counts.count('failed') + counts.count('invalid');
    spinner.text = `${counts.rows.toLocaleString('en')}${total !== undefined ? ` / ${total.toLocaleString('en')}` : ''} rows · ${rate} rows/s · ${bad} failed or invalid`;
  };
  const timer = setInterval(render, 200);
  timer.unref();
  render();
  return {
    setTotal(n) {
      total = n;
    },
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
