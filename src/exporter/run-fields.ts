import type { FieldNames } from '../lib/field-names.js';
import type { ExportRunOptions, RunPlan } from './export-run-options.js';
import { fieldNamesOf } from './field-binding.js';
import { pageFormat, type PageFormat } from './page-format.js';

/**
 * What a run's pages are read and written under: the page format, and for contacts the names a
 * row's saved identity reads its fields by (the field list read when the run started).
 */
export class RunFields {
  private constructor(
    /** The page format in force. */
    public format: PageFormat,
    /** Contacts: the labels of the field list, as a row's identity reads them. */
    readonly names: FieldNames | undefined,
  ) {}

  static async open(opts: ExportRunOptions, plan: RunPlan): Promise<RunFields> {
    const format = await pageFormat(
      opts.kind,
      opts.format,
      plan.layout,
      opts.bom,
      opts.nullAs,
      opts.excelSafe,
      plan.fieldKeys,
    );
    return new RunFields(format, opts.kind === 'contacts' && plan.fields ? fieldNamesOf(plan.fields) : undefined);
  }
}
