import { EXPORT_PAGE_LIMITS } from '../endpoints/endpoints.js';
import { syncContacts } from './contacts-stream.js';
import { syncCustomEvents, syncEmailEvents } from './events-stream.js';
import { SingerOut } from './messages.js';
import type { TapDeps } from './run-deps.js';
import type { TapRunOptions, TapRun } from './tap-run.js';

/**
 * Syncs the selected streams in order (contacts, custom_events, email_events): a SCHEMA first,
 * then each page's RECORDs and a STATE after them; a final STATE always. Streams not selected
 * are not read at all; their bookmarks in the given state are carried over unchanged.
 */
export async function sync(deps: TapDeps, opts: TapRunOptions): Promise<void> {
  const out = new SingerOut(deps.stdout);
  const run: TapRun = {
    deps,
    opts,
    out,
    bookmarks: { ...opts.bookmarks },
    extractedAt: new Date(deps.now()).toISOString(),
    limit: (kind) =>
      Math.max(1, Math.min(EXPORT_PAGE_LIMITS[kind].max, opts.pageSize ?? EXPORT_PAGE_LIMITS[kind].default)),
    commit: () => out.state({ bookmarks: run.bookmarks }),
    // A long sync keeps its memory where a short one's is, as an export does.
    checkHeap: deps.holdHeap?.() ?? (() => {}),
  };
  if (opts.selected.has('contacts')) await syncContacts(run);
  if (opts.selected.has('custom_events')) await syncCustomEvents(run);
  if (opts.selected.has('email_events')) await syncEmailEvents(run);
  await run.commit();
}
