import type { ExportRow } from '../endpoints/exports.js';
import type { PageFormat } from '../exporter/page-format.js';
import { ContactFields } from './contact-record.js';
import { contactFieldDefs } from './field-defs.js';
import { runLane } from './lane.js';
import { recordEnd, recordStart } from './messages.js';
import { NEW_LANE, type ContactsBookmark } from './bookmarks.js';
import { STREAMS } from './stream-table.js';
import type { TapRun } from './tap-run.js';

/**
 * The contacts stream. Its SCHEMA comes from the CONTACT field definitions read now; a row that
 * names a field they do not know makes the run read them again and, when the schema changed,
 * write a new SCHEMA before that row. Without a bookmark (or with one of a full pass cut short)
 * this is a full pass: every record carries the pass's table version, and its end writes
 * ACTIVATE_VERSION, so a target with hard_delete drops the contacts deleted since.
 */
export async function syncContacts(run: TapRun): Promise<void> {
  const { deps, out } = run;
  const { key, replicationKey } = STREAMS.contacts;
  const fields = new ContactFields(await contactFieldDefs(deps.http, deps.signal), run.opts.excluded.contacts);
  const writeSchema = () => out.schema('contacts', fields.schema, [key], [replicationKey]);
  await writeSchema();
  const prior = run.bookmarks.contacts;
  let bookmark: ContactsBookmark = prior ?? {
    ...NEW_LANE,
    account: deps.account,
    replication_key: 'updatedAt',
    version: deps.now(),
    full_pass: true,
  };
  // start_date applies to the first run only: older contacts are read and not emitted.
  const sinceMs = !prior && run.opts.startDate ? Date.parse(run.opts.startDate) : undefined;
  const format = contactFormat(fields, bookmark.version, run.extractedAt, sinceMs);
  const commit = () => {
    run.bookmarks.contacts = bookmark;
    return run.commit();
  };
  await runLane({
    http: deps.http,
    label: 'contacts',
    signal: deps.signal,
    now: deps.now,
    warn: deps.warn,
    out,
    afterPage: run.checkHeap,
    target: { kind: 'contacts' },
    start: prior ?? NEW_LANE,
    limit: run.limit('contacts'),
    format,
    writeHeld: async (held) => {
      const labels = held.map((h) => fields.unknownLabel(h.row)).filter((l): l is string => l !== undefined);
      if (fields.use(await contactFieldDefs(deps.http, deps.signal))) await writeSchema();
      fields.settle(labels);
      for (const { row, text } of held) await out.text(format.line(row, text));
    },
    commit: (pos) => {
      bookmark = { ...bookmark, ...pos };
      return commit();
    },
  });
  if (bookmark.full_pass) {
    await out.activateVersion('contacts', bookmark.version);
    bookmark = { ...bookmark, full_pass: false };
    await commit();
  }
}

/** RECORD lines of contacts (fields as properties by key), rows updated before `sinceMs` left out. */
function contactFormat(
  fields: ContactFields,
  version: number,
  extractedAt: string,
  sinceMs?: number,
): PageFormat & { line(row: ExportRow, text: string): string } {
  const start = recordStart('contacts');
  const end = recordEnd(version, extractedAt);
  return {
    preamble: () => Buffer.alloc(0),
    holds: (row) => fields.unknownLabel(row) !== undefined,
    line: (row, text = JSON.stringify(row)) => {
      if (sinceMs !== undefined && Date.parse(String(row.updatedAt)) < sinceMs) return '';
      return start + fields.recordText(row, text) + end;
    },
  };
}
