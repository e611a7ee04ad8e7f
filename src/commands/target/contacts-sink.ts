import { Writable } from 'node:stream';
import { payloadHash } from '../../batch/file-run.js';
import type { FileBatchSpec, Prepared } from '../../batch/file-run.js';
import { SUCCESS_STATUSES } from '../../batch/types.js';
import { exportDepsOf, reporterDepsOf, stateDirOf } from '../../cmdutil/context-deps.js';
import { contactFieldDefinitions, upsertFileSpec } from '../../cmdutil/contact-upsert-file.js';
import { identifierKey } from '../../cmdutil/membership-sync.js';
import type { Context } from '../../context.js';
import type { UpsertContactBody } from '../../endpoints/contacts.js';
import type { FieldDefinition } from '../../endpoints/fields.js';
import type { InputRow } from '../../input/input-rows.js';
import { UPSERT_COLUMNS } from '../../contacts/file-row.js';
import { parseJson } from '../../json/exact-json.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { LedgerRecord } from '../../ledger/ledger-file.js';
import { decidedRows } from '../../sync/decided-rows.js';
import { syncStateKey } from '../../sync/phases.js';
import { PlanOutput } from '../../sync/plan-output.js';
import { refreshReporter } from '../../sync/refresh-reporter.js';
import { lockSync, refreshSnapshot, type Snapshot } from '../../sync/snapshot.js';
import { discardUncommittedSnapshot } from '../../sync/uncommitted-snapshot.js';
import type { StreamSchema, StreamSink } from '../../target/stream-sink.js';
import { changeWriter, keyOrIdentifier, openStreamLedger, streamColumnFlags } from './sink-common.js';

/** The account's contacts as `contacts sync` keeps them (its snapshot, under its lock), refreshed once a run. */
export interface ContactsView {
  snapshot: Snapshot;
  fields: ReadonlyMap<string, FieldDefinition>;
}

/** The snapshot of the account, refreshed at the first contacts stream's SCHEMA (the sync's lock held to the end). */
export function contactsView(ctx: Context): () => Promise<ContactsView> {
  let view: Promise<ContactsView> | undefined;
  return () =>
    (view ??= (async () => {
      const credentials = await ctx.credentials();
      const key = syncStateKey(credentials.baseUrl, credentials.apiKey);
      const lock = await lockSync(stateDirOf(ctx).path, key);
      ctx.onDispose(() => lock.release());
      const read = (await contactFieldDefinitions(ctx, true, false))?.get('fields');
      const fields = read ?? new Map<string, FieldDefinition>();
      const deps = { ...exportDepsOf(ctx), reporter: await refreshReporter(reporterDepsOf(ctx)) };
      // The pages are read under the fields read (none when the account refused the list), read again after each.
      const opts = { key, fields, watched: read !== undefined, full: false };
      const snapshot = await refreshSnapshot(deps, opts).catch(async (err: unknown) => {
        await discardUncommittedSnapshot(deps, key);
        throw err;
      });
      ctx.onDispose(() => snapshot.close());
      return { snapshot, fields };
    })());
}

/**
 * A stream of contacts, as `contacts sync` sends them: each record compared with the account (the
 * snapshot refreshed before the first one), only a contact that differs sent (one upsert each).
 * The stream's key is mapped to the contact through the job's ledger: the cnvContactId an upsert
 * answered for it is sent with its next records (while the contact exists), so a person whose
 * email changed in the source updates the same contact instead of making a second one.
 */
export async function contactsSink(
  ctx: Context,
  schema: StreamSchema,
  view: () => Promise<ContactsView>,
): Promise<StreamSink<UpsertContactBody>> {
  const { snapshot, fields } = await view();
  const ledger = await openStreamLedger(ctx, schema);
  const flags = streamColumnFlags(schema, UPSERT_COLUMNS, fieldMaps(schema));
  const base = await upsertFileSpec(ctx, { file: '-', ...flags }, 'target', schema.mode);
  const plan = schema.mode === 'plan' ? await PlanOutput.open(intoReport(changeWriter(schema)!)) : undefined;
  const keyed: FileBatchSpec<UpsertContactBody> = {
    ...base,
    prepare: (row, columns) => knownContact(base.prepare(row, columns), schema.keyOf(row), ledger, snapshot),
  };
  const { rows, counts } = decidedRows(snapshot, { base: keyed, fields, plan, exitCode: false });
  const keyOf = (row: InputRow, body: UpsertContactBody) => schema.keyOf(row) ?? identifierKey(body);
  const sent = new WeakMap<object, string>();
  const learnt: LedgerRecord[] = [];
  return {
    kind: 'contacts',
    endpoint: base.columns.rules.endpoint,
    columns: base.columns,
    columnFlags: flags,
    rows: {
      ...rows,
      prepare(row, columns) {
        const prepared = rows.prepare(row, columns);
        if (prepared.invalid || prepared.payload === undefined) return prepared;
        const key = keyOf(row, prepared.payload);
        if (!prepared.done) sent.set(prepared.payload, key);
        else if (prepared.done.id !== undefined && ledger.entries.get(key)?.id !== prepared.done.id)
          learnt.push(['put', key, payloadHash(prepared.payload), 'ok', prepared.done.id, null]);
        return prepared;
      },
      async send(items, signal) {
        const outcomes = await rows.send(items, signal);
        const records: LedgerRecord[] = [];
        items.forEach((item, i) => {
          const key = sent.get(item.payload);
          const outcome = outcomes[i];
          if (key === undefined) return;
          const id = outcome.id ?? ledger.entries.get(key)?.id ?? null;
          if (SUCCESS_STATUSES.has(outcome.status))
            records.push(['put', key, payloadHash(item.payload), 'ok', id, null]);
          else if (outcome.refusal)
            records.push(['put', key, payloadHash(item.payload), 'refused', id, outcome.error ?? null]);
        });
        await ledger.record(records);
        return outcomes;
      },
    },
    chunkSize: 1,
    concurrency: base.options.concurrency,
    ledger,
    key: keyOrIdentifier(schema, base.prepare),
    drain: () => learnt.splice(0),
    close: async () => void (await plan?.end(counts)),
  };
}

/** A record of the stream's key the ledger knows a contact for, and that names none itself: sent with its cnvContactId. */
function knownContact(
  prepared: Prepared<UpsertContactBody>,
  key: string | undefined,
  ledger: Ledger,
  snapshot: Snapshot,
): Prepared<UpsertContactBody> {
  if (key === undefined || prepared.invalid || prepared.done || prepared.payload.cnvContactId !== undefined)
    return prepared;
  const id = ledger.entries.get(key)?.id;
  // A contact deleted in the account since (not in the snapshot): the row finds its contact by email again.
  if (id === undefined || !snapshot.index.slotsById(id).some((slot) => snapshot.reader.read(slot).id === id))
    return prepared;
  return { ...prepared, payload: { ...prepared.payload, cnvContactId: id } };
}

/**
 * cnv's own tap names a CONTACT field `field_<key>` where its key is one of the export's members
 * (`field_email`): sent to that field. Only for the default `contacts` stream (the tap's).
 */
function fieldMaps(schema: StreamSchema): string[] {
  if (schema.config.byDefault !== 'contacts') return [];
  return schema.properties.filter((p) => /^field_./.test(p)).map((p) => `${p}=fields.${p.slice('field_'.length)}`);
}

/** Where a plan's NDJSON lines go: each into the report, as a change of the stream. */
function intoReport(change: (line: Record<string, unknown>) => void) {
  let rest = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const doc = parseJson(line) as Record<string, unknown>;
        // contacts sync's plan ends with its counts: the stream's, beside the run's summary.
        change(doc.type === 'summary' ? { ...doc, type: 'plan' } : doc);
      }
      done();
    },
  });
  return { stdout, stdoutIsTTY: false, json: true, color: false };
}
