import { ApiError, UsageError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { csvLayout, type CsvLayout, type FieldsBy, type FileLayout, type LabelledField } from './csv-layout.js';
import type { ExportDeps } from './export-deps.js';
import type { ExportRunOptions } from './export-run-options.js';
import { anyChange, bindLayout, changeLines, labelChanges, labelsByKey, type FieldChanges } from './field-binding.js';
import { fieldKeys, type FieldKeys } from './fields-by-key.js';
import type { ExportState, Position } from './export-state.js';

/**
 * Reads the CONTACT field definitions where the run needs them (CSV, --fields-by key, an NDJSON
 * export that records its labels) and decides the naming of fields: --fields-by, else what the
 * state recorded (a cron line without the flag follows its file; plan.ts refuses a flag that
 * contradicts a file it appends to), else label. What changed since is said in a note.
 */
export async function planFields(
  deps: Pick<ExportDeps, 'signal' | 'notices'>,
  http: HttpClient,
  opts: ExportRunOptions,
  at: { key: string | null; prior?: ExportState; base?: Position; appending: boolean; out: string },
): Promise<{
  fieldsBy: FieldsBy;
  /** Contacts: the field list read (the pages are read under it, and it is read again after each: field-watch.ts). */
  fields?: readonly LabelledField[];
  /** NDJSON --fields-by key: how `fields` members become keys. */
  fieldKeys?: FieldKeys;
  /** CSV: the header (bound to the field list as it is now) and its cell rules. */
  layout: FileLayout | null;
  /** NDJSON by label, with a state: each field's member name by key, recorded with the position. */
  labels?: Record<string, string>;
  fieldChanges?: FieldChanges;
}> {
  const { base } = at;
  const fieldsBy = opts.kind === 'contacts' ? (opts.fieldsBy ?? at.prior?.current.fieldsBy ?? 'label') : 'label';
  const watch = opts.format === 'ndjson' && opts.watchFields === true && at.key !== null && fieldsBy === 'label';
  const needed = opts.kind === 'contacts' && (opts.format === 'csv' || fieldsBy === 'key');
  const fields =
    opts.kind === 'contacts' && opts.fields
      ? opts.fields
      : needed
        ? await contactFields(http, deps.signal)
        : watch
          ? await watchedFields(deps, http)
          : undefined;
  const keys = fieldsBy === 'key' && opts.format === 'ndjson' ? fieldKeysOf(deps, fields ?? []) : undefined;
  const saved = (base?.fieldsBy ?? 'label') === fieldsBy ? base?.csv : null;
  const chosen =
    opts.format === 'csv' ? chooseLayout(opts, fields ?? [], fieldsBy, at.appending ? base!.csv : null, saved) : null;
  const layout = chosen && { ...chosen.layout, nullAs: opts.nullAs ?? '', excelSafe: opts.excelSafe };
  // A list that could not be read keeps the labels of the last run that read one.
  const labels = watch ? (fields ? labelsByKey(fields) : base?.fieldLabels) : undefined;
  const changes =
    chosen?.changes ?? (fields && labels && base?.fieldLabels ? labelChanges(base.fieldLabels, fields) : undefined);
  const fieldChanges = changes && anyChange(changes) ? changes : undefined;
  if (fieldChanges) {
    const output = chosen ? 'csv' : 'labels';
    const when = chosen ? `since ${at.out}'s header was made` : `since the last run into ${at.out}`;
    for (const line of changeLines(fieldChanges, output, when, at.key)) deps.notices.tell(line);
  }
  return {
    fieldsBy,
    ...(fields ? { fields } : {}),
    layout,
    ...(keys ? { fieldKeys: keys } : {}),
    ...(labels ? { labels } : {}),
    ...(fieldChanges ? { fieldChanges } : {}),
  };
}

/** --fields-by key: the contact fields' keys by label, warning of labels that two fields share (with --quiet too). */
export function fieldKeysOf(deps: Pick<ExportDeps, 'notices'>, fields: readonly LabelledField[]): FieldKeys {
  const keys = fieldKeys(fields);
  if (keys.shared.size > 0) {
    const named = [...keys.shared].map(([label, shared]) => `"${label}" (${shared.join(', ')})`).join('; ');
    deps.notices.tell(
      `warning: --fields-by key: labels two fields share cannot name one field: ${named}; ` +
        'a member named by such a label goes to unresolvedFields',
    );
  }
  return keys;
}

/**
 * The CSV header: the file's own when appending, else --columns, else the saved one (of the same
 * --fields-by), else every column, by label or by key. Contacts: a header kept from before is
 * bound again to the field list as it is now (field-binding.ts), and what changed in it is said
 * (`changes`).
 */
function chooseLayout(
  opts: ExportRunOptions,
  fields: readonly LabelledField[],
  by: FieldsBy,
  fileLayout: CsvLayout | null,
  saved: CsvLayout | null | undefined,
): { layout: CsvLayout; changes?: FieldChanges } {
  const asked = opts.columns ? csvLayout(opts.kind, fields, opts.columns, by) : undefined;
  const kept = (layout: CsvLayout) => (opts.kind === 'contacts' ? bindLayout(layout, fields) : { layout });
  if (fileLayout) {
    if (asked && asked.columns.join('\u0000') !== fileLayout.columns.join('\u0000')) {
      throw new UsageError(
        `--columns: the file's header is fixed (${fileLayout.columns.join(',')}); a file keeps one header`,
        'leave --columns out, write to a new --out file, or use --full',
      );
    }
    return kept(fileLayout);
  }
  if (asked) return { layout: asked };
  if (saved && !opts.full) return kept(saved);
  return { layout: csvLayout(opts.kind, fields, undefined, by) };
}

/**
 * NDJSON by label reads the field list only to note relabels: a list the server refuses (a
 * definite 4xx: no permission, a proxy's answer) is a warning and the export goes on without the
 * note (undefined). A transient failure still stops the run (exit 7), as for every field list.
 */
async function watchedFields(
  deps: Pick<ExportDeps, 'signal' | 'notices'>,
  http: HttpClient,
): Promise<LabelledField[] | undefined> {
  try {
    return await contactFields(http, deps.signal);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 429) throw err;
    deps.notices.tell(
      `warning: the field list could not be read (${err.code}, HTTP ${err.status}): ` +
        'fields relabelled in the account are not noted this run',
    );
    return undefined;
  }
}

/** Every CONTACT field, key and label (all pages of GET /v2/fields). */
export async function contactFields(http: HttpClient, signal: AbortSignal): Promise<LabelledField[]> {
  const { allFieldPages } = await import('../endpoints/field-pages.js');
  const all: LabelledField[] = [];
  for await (const fields of allFieldPages(http, { objectType: 'CONTACT' }, signal))
    for (const f of fields) all.push({ key: f.key, label: f.label });
  return all;
}
