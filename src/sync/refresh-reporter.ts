import type { ReporterDeps } from '../exporter/export-deps.js';
import type { ExportReporter } from '../exporter/run-summary.js';
import { plural, rate } from '../output/wording.js';

/**
 * How a snapshot refresh shows itself: a spinner on a terminal (a first refresh of a large
 * account takes a while), and nothing at the end: the sync's summary says what it fetched.
 */
export async function refreshReporter(deps: Pick<ReporterDeps, 'progress' | 'clock'>): Promise<ExportReporter> {
  if (!deps.progress) return { page: () => {}, done: () => {} };
  const { default: ora } = await import('ora');
  const started = deps.clock.now();
  const spinner = ora({
    text: 'sync: refreshing the snapshot of the account',
    stream: deps.progress.stream,
    isEnabled: true,
    discardStdin: false,
    color: deps.progress.color ? 'cyan' : false,
  }).start();
  return {
    page(rows, pages) {
      const speed = rate(rows, deps.clock.now() - started);
      spinner.text = `sync: refreshing the snapshot: ${plural(rows, 'contact')}, ${plural(pages, 'page')}${speed}`;
    },
    done() {
      spinner.stop();
    },
  };
}
