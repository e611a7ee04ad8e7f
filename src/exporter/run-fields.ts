import type { HttpClient } from '../http/client.js';
import type { MemberKeys } from '../lib/member-keys.js';
import type { CsvLayout, FileLayout, LabelledField } from './csv-layout.js';
import type { ExportDeps } from './export-deps.js';
import type { ExportRunOptions, RunPlan } from './export-run-options.js';
import { anyChange, bindLayout, changeLines, labelsByKey, type FieldChanges } from './field-binding.js';
import { FieldWatch } from './field-watch.js';
import type { FieldKeys } from './fields-by-key.js';
import { pageFormat, type PageFormat } from './page-format.js';
import { contactFields, fieldKeysOf } from './plan-fields.js';
import type { ExportSummary } from './run-summary.js';
import type { ReceivedPage } from './page-receiver.js';
import type { Position } from './export-state.js';

/**
 * What a run's pages are read and written under: the page format, and for contacts the field
 * list the export labels rows by (field-watch.ts) and what is made of it (a CSV header's
 * columns bound to their fields, --fields-by key's names, the identities' names, the labels an
 * NDJSON state records). A list that changed after a page makes it all again under the new one,
 * says so, and has the page read again (`trust`).
 */
export class RunFields {
  private constructor(
    private readonly deps: Pick<ExportDeps, 'notices'>,
    private readonly opts: ExportRunOptions,
    private readonly plan: RunPlan,
    private readonly watch: FieldWatch | undefined,
    /** The page format in force. */
    public format: PageFormat,
    private layout: FileLayout | null,
    private labels: Record<string, string> | undefined,
  ) {}

  /**
   * Whether every page depends on the labels (a CSV's columns, --fields-by key, a reader's
   * segments: contacts sync), or (NDJSON by label, written as sent) only a page whose rows were
   * read through them (`ReceivedPage.named`: the saved identities).
   */
  private everyPage = true;

  static async open(
    deps: Pick<ExportDeps, 'notices' | 'signal'>,
    http: HttpClient,
    opts: ExportRunOptions,
    plan: RunPlan,
  ): Promise<RunFields> {
    const watch =
      opts.kind === 'contacts' && plan.fields
        ? new FieldWatch(() => contactFields(http, deps.signal), plan.fields)
        : undefined;
    const format = await formatOf(opts, plan.layout, plan.fieldKeys);
    const fields = new RunFields(deps, opts, plan, watch, format, plan.layout, plan.start.fieldLabels);
    fields.everyPage = opts.format === 'csv' || plan.fieldKeys !== undefined || opts.fields !== undefined;
    return fields;
  }

  /** Contacts: the labels of the field list in force, as a row's identity reads them. */
  get names(): MemberKeys | undefined {
    return this.watch?.names;
  }

  /** Contacts: the field list in force (what the next page is read under). */
  get fields(): readonly LabelledField[] | undefined {
    return this.watch?.fields;
  }

  /** Whether the run reads its pages under a field list it checks after each (else `trust` is not needed). */
  get watched(): boolean {
    return this.watch !== undefined;
  }

  /**
   * After a page arrives (page `n` of the run): true when the field list is still the one it was
   * read under (or the page does not depend on it). Else the header's bindings, the names and the
   * format are made again under the new list, each change said (one line each, with --quiet
   * too) and added to the summary's fieldChanges, and false: the page is read again.
   */
  async trust(summary: ExportSummary, n: number, page: Pick<ReceivedPage, 'named'>): Promise<boolean> {
    if (!this.everyPage && !page.named) return true;
    const changes = await this.watch!.changed();
    if (!changes) return true;
    const fields = this.watch!.fields;
    if (this.layout && this.opts.kind === 'contacts') {
      const { nullAs, excelSafe } = this.layout;
      this.layout = { ...bindLayout(this.layout, fields).layout, nullAs, excelSafe };
    }
    const keys = this.plan.fieldKeys ? fieldKeysOf(this.deps, fields) : undefined;
    this.format = await formatOf(this.opts, this.layout, keys);
    if (this.labels) this.labels = labelsByKey(fields);
    if (anyChange(changes)) {
      const said = this.layout ? this.withColumns(changes) : changes;
      const output = this.layout ? 'csv' : keys ? 'keys' : 'labels';
      const when = `while the export into ${this.plan.path ?? 'stdout'} read its page ${n}, read again under the new labels`;
      for (const line of changeLines(said, output, when, this.plan.key)) this.deps.notices.tell(line);
      summary.fieldChanges = merged(summary.fieldChanges, said);
    }
    return false;
  }

  /** CSV: each changed field's column (a field the header has no column for is no column's). */
  private withColumns(changes: FieldChanges): FieldChanges {
    const bound = this.layout!.fieldKeys ?? {};
    const columnOf = (key: string) => Object.keys(bound).find((column) => bound[column] === key);
    const relabelled = changes.relabelled.flatMap((c) => {
      const column = columnOf(c.key);
      return column === undefined ? [] : [{ ...c, column }];
    });
    const removed = changes.removed.flatMap((c) => {
      const column = columnOf(c.key);
      return column === undefined ? [] : [{ ...c, column }];
    });
    return { relabelled, added: changes.added, removed };
  }

  /** What a committed position records of the fields in force: the CSV header's bindings, the NDJSON labels. */
  position(): Partial<Position> {
    return { ...(this.layout ? { csv: this.layout } : {}), ...(this.labels ? { fieldLabels: this.labels } : {}) };
  }
}

function formatOf(opts: ExportRunOptions, layout: CsvLayout | null, keys: FieldKeys | undefined): Promise<PageFormat> {
  return pageFormat({ ...opts, layout, fieldKeys: keys });
}

/** Two runs' worth of changes as one (a field relabelled twice keeps its first label and its last). */
function merged(before: FieldChanges | undefined, now: FieldChanges): FieldChanges {
  if (!before) return now;
  const relabelled = [...before.relabelled];
  for (const c of now.relabelled) {
    const at = relabelled.findIndex((r) => r.key === c.key);
    if (at < 0) relabelled.push(c);
    else relabelled[at] = { ...relabelled[at], to: c.to };
  }
  return { relabelled, added: [...before.added, ...now.added], removed: [...before.removed, ...now.removed] };
}
