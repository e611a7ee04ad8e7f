import type { ExportRow } from '../endpoints/exports.js';
import type { PageFormat } from '../exporter/page-format.js';
import type { FieldDefinition } from '../endpoints/fields.js';
import { FieldWatch } from '../exporter/field-watch.js';
import { ContactFields } from './contact-record.js';
import { contactFieldDefs } from './field-defs.js';
import { noteFieldChanges, noteListChanged, noteNewFields } from './field-notes.js';
import { afterRefusal, laneBase, runLane } from './lane.js';
import { recordEnd, recordStart } from './messages.js';
import { NEW_LANE, type ContactsBookmark } from './bookmarks.js';
import { STREAMS } from './stream-table.js';
import type { StreamWriter } from './stream-writer.js';
import type { TapRun } from './tap-run.js';

/**
 * The contacts stream. Its SCHEMA comes from the CONTACT field definitions read now; a row that
 * names a field they do not know makes the run read them again and, when the schema changed,
 * write a new SCHEMA before that row. Without a bookmark (or with one of a full pass cut short)
 * this is a full pass: every record carries the pass's table version, and its end writes
 * ACTIVATE_VERSION, so a target with hard_delete drops the contacts deleted since. A state's
 * cursor the server refuses starts this stream alone over, as a full pass.
 */
export async function syncContacts(run: TapRun): Promise<void> {
  await afterRefusal(run.deps.warn, 'contacts (a full pass)', async (restarted) => {
    if (restarted) delete run.bookmarks.contacts;
    await contactsPass(run);
  });
}

async function contactsPass(run: TapRun): Promise<void> {
  const { deps, opts } = run;
  const { key, replicationKey } = STREAMS.contacts;
  const writer = run.writer('contacts');
  let defs: readonly FieldDefinition[] = await contactFieldDefs(deps.http, deps.signal);
  const prior = run.bookmarks.contacts;
  noteFieldChanges(deps.warn, defs, prior?.fields);
  const fields = new ContactFields(defs, opts.excluded.contacts);
  const writeSchema = () => writer.schema(fields.schema, [key], [replicationKey!]);
  await writeSchema();
  // A rewound stream (an SDK bookmark) reads every contact and emits those updated from its time: not a full pass.
  const rewind = prior ? undefined : opts.rewind?.contacts;
  let bookmark: ContactsBookmark = prior ?? {
    ...NEW_LANE,
    account: deps.account,
    replication_key: 'updatedAt',
    version: deps.now(),
    full_pass: rewind === undefined,
  };
  bookmark = { ...bookmark, fields: defs.map((d) => d.key) };
  // start_date applies to the first run only: older contacts are read and not emitted.
  const since = prior ? undefined : (rewind ?? opts.startDate);
  const sinceMs = since === undefined ? undefined : Date.parse(since);
  const format = contactFormat(fields, writer, bookmark.version, run.extractedAt, sinceMs);
  const commit = () => {
    run.bookmarks.contacts = bookmark;
    return run.commit();
  };
  // A new field list in force: the schema (a new SCHEMA, through the stream's maps, when it
  // changed) and the bookmark's fields.
  const useDefs = async (now: readonly FieldDefinition[]) => {
    fields.use((defs = now));
    bookmark = { ...bookmark, fields: now.map((d) => d.key) };
    await writeSchema();
  };
  // Labels that change while the stream reads: a page is trusted when the definitions read after it are the ones before.
  const watch = new FieldWatch(() => contactFieldDefs(deps.http, deps.signal), defs);
  const trust = async () => {
    // --test's one request a stream (one row, no STATE): no read of the list after it.
    if (opts.test) return true;
    const changes = await watch.changed();
    if (!changes) return true;
    noteListChanged(deps, defs, watch.fields, changes.relabelled);
    await useDefs(watch.fields);
    return false;
  };
  await runLane({
    ...laneBase(run, 'contacts'),
    target: { kind: 'contacts' },
    fields: { names: () => watch.names, trust },
    start: prior ?? NEW_LANE,
    limit: run.limit('contacts'),
    format,
    writeHeld: async (held) => {
      const labels = held.map((h) => fields.unknownLabel(h.row)).filter((l): l is string => l !== undefined);
      if (labels.length > 0) {
        const now = await contactFieldDefs(deps.http, deps.signal);
        noteNewFields(deps.info, defs, now);
        await useDefs(now);
        fields.settle(labels);
      }
      for (const { row, text } of held) await format.held(row, text);
    },
    commit: (pos) => {
      bookmark = { ...bookmark, ...pos };
      return commit();
    },
  });
  if (bookmark.full_pass && !opts.test) {
    await writer.activateVersion(bookmark.version);
    bookmark = { ...bookmark, full_pass: false };
    await commit();
  }
}

/**
 * RECORD lines of contacts (fields as properties by key), rows updated before `sinceMs` left out:
 * from the row's text (record-text.ts) when the stream goes out as it is, else the record mapped
 * and flattened (stream-writer.ts).
 */
function contactFormat(
  fields: ContactFields,
  writer: StreamWriter,
  version: number,
  extractedAt: string,
  sinceMs: number | undefined,
): PageFormat & { held(row: ExportRow, text: string): Promise<void> } {
  const start = recordStart('contacts');
  const end = recordEnd(version, extractedAt);
  const { plain, learns } = writer;
  const skip = (row: ExportRow) => sinceMs !== undefined && Date.parse(String(row.updatedAt)) < sinceMs;
  return {
    preamble: () => Buffer.alloc(0),
    holds: (row) =>
      fields.unknownLabel(row) !== undefined || (learns && !skip(row) && writer.holds(fields.record(row, ''))),
    line: (row, text = JSON.stringify(row)) => {
      if (skip(row)) return '';
      return plain ? start + fields.recordText(row, text) + end : writer.lines(fields.record(row, text), version);
    },
    held: async (row, text) => {
      if (skip(row)) return;
      if (plain) await writer.text(start + fields.recordText(row, text) + end);
      else await writer.writeHeld(fields.record(row, text), version);
    },
  };
}
