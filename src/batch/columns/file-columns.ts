import { UsageError } from '../../errors.js';
import { columnForm, spellingsOf } from '../../input/column-names.js';
import { suggest } from '../../lib/did-you-mean.js';
import { InputFileError, quoteInput, type InputRow } from '../../input/input-rows.js';
import { readColumnFlags, type ColumnFlagValues } from './column-flags.js';
import { turn } from '../../lib/turn.js';
import { MAX_COLUMNS } from '../../limits/limits.js';
import { columnEntries, type ColumnEntry } from './column-table.js';
import { ColumnResolver, type ColumnRules, type ResolvedColumn } from './column-resolver.js';
import type { FieldsByParent } from './field-match.js';

/** How a file run's columns are resolved (src/batch/columns/column-resolver.ts) and what reads the definitions. */
export interface FileColumnsSpec {
  rules: ColumnRules;
  /**
   * Field definitions by parent, read only when a column may name a field; undefined when they
   * cannot be read. `fresh`: not from a cache (asked once when a column names no field).
   */
  definitions?(fresh: boolean): Promise<FieldsByParent | undefined>;
  /** Unknown columns are kept (for a --check that reports them) instead of refusing the file. */
  keepUnknown?: boolean;
  /** Columns of which a CSV needs one (none when a flag default gives every row one). */
  identifierColumns?: readonly string[];
}

/**
 * The columns of one file run: resolved once from the CSV header (or the keys of the first rows
 * of a JSON file) before any request, refusing the file (exit 2) when a column names nothing the
 * endpoint takes; keys first seen in later JSON rows are resolved as they come.
 */
export class FileColumns {
  private readonly seen = new Set<string>();
  private readonly order: ResolvedColumn[] = [];

  private constructor(
    readonly resolver: ColumnResolver,
    private readonly spec: FileColumnsSpec,
    private readonly file: string,
    private readonly signal?: AbortSignal,
  ) {}

  static async open(
    spec: FileColumnsSpec,
    flags: ColumnFlagValues,
    file: string,
    signal?: AbortSignal,
  ): Promise<FileColumns> {
    return new FileColumns(new ColumnResolver(spec.rules, await readColumnFlags(flags, signal)), spec, file, signal);
  }

  /**
   * Resolves the header (CSV, `headerLine` its line) or the first rows' keys; throws a
   * UsageError for unknown columns, a --map naming no column of the header, or no identifier.
   */
  async start(header: readonly string[] | undefined, rows: readonly InputRow[], headerLine = 1): Promise<void> {
    const names = header ?? keysOf(rows);
    this.resolver.meet(names, header !== undefined);
    await this.learnOrRefresh(names);
    if (header) {
      // A file that names no identifier: said first (an unknown column may be the identifier, spelt otherwise).
      this.checkIdentifiers(header, headerLine);
      this.checkMaps(header);
      // A --key-column the header lacks, before the columns it leaves unknown (the file's key column, spelt otherwise).
      const key = this.resolver.keyColumn;
      if (key !== undefined) requireColumn('--key-column', key, header, this.file);
    }
    let unknown = this.order.filter((c) => c.target.kind === 'unknown');
    // A field created since the cached definitions were saved: ask the API once more.
    if (unknown.length > 0 && this.resolver.hasDefinitions && this.spec.definitions) {
      this.relearn(await this.spec.definitions(true));
      unknown = this.order.filter((c) => c.target.kind === 'unknown');
    }
    if (unknown.length > 0 && !this.spec.keepUnknown) throw this.unknownError(unknown);
  }

  /**
   * Resolves the keys of later JSON rows first seen now (reading definitions when they need
   * them); returns their table entries, for the run to show (the table was printed already).
   */
  async more(rows: readonly InputRow[]): Promise<ColumnEntry[]> {
    if (rows.length === 0 || rows[0].textual) return [];
    const fresh = keysOf(rows).filter((k) => !this.seen.has(k));
    if (fresh.length === 0) return [];
    this.resolver.meet(fresh);
    const before = this.order.length;
    await this.learn(fresh);
    return columnEntries(this.order.slice(before), this.spec.rules.identifiers);
  }

  /** What each column resolved to, in the order the columns were met. */
  resolved(): readonly ResolvedColumn[] {
    return this.order;
  }

  /** The table of what each column became, in the order the columns were met. */
  entries(): ColumnEntry[] {
    return columnEntries(this.order, this.spec.rules.identifiers);
  }

  /** learn(), asking for fresh definitions once when a --map target names a field the cached ones lack. */
  private async learnOrRefresh(names: readonly string[]): Promise<void> {
    try {
      await this.learn(names);
    } catch (err) {
      if (!(
        err instanceof UsageError &&
        err.code === 'unknown_column' &&
        this.resolver.hasDefinitions &&
        this.spec.definitions
      ))
        throw err;
      this.relearn(await this.spec.definitions(true));
      await this.learn(names);
    }
  }

  private async learn(names: readonly string[]): Promise<void> {
    if (this.resolver.needsDefinitions(names)) this.relearn(await this.spec.definitions?.(false));
    for (let i = 0; i < names.length; i++) {
      // A header of 20,000 columns resolves in a fraction of a second; a signal still stops it.
      if (i % 2048 === 2047) await turn(this.signal);
      const name = names[i];
      if (this.seen.has(name)) continue;
      // The keys of JSON rows are columns too: as bounded as a CSV header (src/input/csv-rows.ts).
      if (this.seen.size >= MAX_COLUMNS)
        throw new InputFileError(
          this.file,
          `its rows hold more than ${MAX_COLUMNS.toLocaleString('en-US')} different keys, the most columns cnv reads`,
        );
      this.seen.add(name);
      this.order.push({ ...this.resolver.resolve(name) });
    }
  }

  /** What was resolved before these definitions came may now resolve otherwise. */
  private relearn(definitions: FieldsByParent | undefined): void {
    // Fresh definitions that cannot be read leave the cached ones in place.
    if (definitions === undefined && this.resolver.hasDefinitions) return;
    this.resolver.useDefinitions(definitions);
    for (const c of this.order) Object.assign(c, this.resolver.resolve(c.column));
  }

  private unknownError(unknown: readonly ResolvedColumn[]): UsageError {
    const definitions = unknown.some((c) => c.target.kind === 'unknown' && c.target.why === 'definitions');
    const each = unknown.slice(0, MAX_LISTED).map(({ column, target }) => {
      const t = target as Extract<typeof target, { kind: 'unknown' }>;
      const why =
        t.why === 'definitions'
          ? ''
          : t.why
            ? ` (${t.why})`
            : t.nearest
              ? ` (nearest: ${t.nearest})`
              : ' (no key or field is near it)';
      return `${quoteInput(column)}${why}`;
    });
    const more = unknown.length > MAX_LISTED ? `, and ${unknown.length - MAX_LISTED} more` : '';
    // Every one names several things (a key and a field, fields of two parents): which is meant is never guessed.
    if (unknown.every((c) => c.target.kind === 'unknown' && c.target.ambiguous)) {
      const what = unknown.length === 1 ? 'a column names' : `${unknown.length} columns name`;
      const hint =
        'say which with --map (a field by its key, fields.KEY or companyFields.KEY: ' +
        'a rename in the account never moves it); docs/batches.md "Columns"';
      return new UsageError(
        `${this.file}: ${what} more than one thing ${this.spec.rules.endpoint} takes: ${each.join(', ')}${more}`,
        hint,
        'unknown_column',
      );
    }
    const what = unknown.length === 1 ? 'a column that names' : `${unknown.length} columns that name`;
    return new UsageError(
      `${this.file}: ${what} nothing ${this.spec.rules.endpoint} takes: ${each.join(', ')}${more}`,
      definitions ? UNREAD_DEFINITIONS_HINT : this.unknownColumnsHint(),
      'unknown_column',
    );
  }

  /** What to do with columns that name nothing: map, leave out, or (where the rows have fields) create a field. */
  private unknownColumnsHint(): string {
    const create = this.spec.rules.fieldParents?.length ? ', or create the field (cnv fields create)' : '';
    return (
      "map a column (--map 'COLUMN=target', --map-file), " +
      `leave it out (--ignore-column COLUMN, or --ignore-unknown-columns)${create}; docs/batches.md "Columns"`
    );
  }

  /** A --map for a column the header does not have is a typo, not a no-op (a map file may name columns a file lacks). */
  private checkMaps(header: readonly string[]): void {
    let named: Set<string> | undefined;
    for (const m of this.resolver.flagMaps()) {
      if (m.source !== '--map') continue;
      named ??= new Set([...header, ...header.map(columnForm)]);
      if (named.has(m.column) || named.has(columnForm(m.column))) continue;
      const [near] = suggest(columnForm(m.column), header.map(columnForm));
      const nearest = near === undefined ? undefined : header.find((h) => columnForm(h) === near);
      const nearText = nearest === undefined ? '' : ` (nearest: ${quoteInput(nearest)})`;
      throw new UsageError(
        `--map: ${this.file} has no column ${quoteInput(m.column)}${nearText}`,
        undefined,
        'unknown_column',
      );
    }
  }

  private checkIdentifiers(header: readonly string[], line: number): void {
    const wanted = this.spec.identifierColumns;
    if (!wanted) return;
    if (this.order.some((c) => c.target.kind === 'key' && wanted.includes(c.target.key))) return;
    const shown = header.map((name) => quoteInput(name)).join(', ');
    throw new InputFileError(
      this.file,
      `the header names none of the columns that identify a row: ${spellingsOf(wanted)}; ` +
        `any case (it has: ${shown.slice(0, 300)})`,
      line,
      "name one, or map one (--map 'Work Email=email')",
    );
  }
}

const MAX_LISTED = 20;

const UNREAD_DEFINITIONS_HINT =
  'the field definitions could not be read to resolve them (see the warning): ' +
  'name them fields.KEY, or --map COLUMN=fields.KEY';

/** Refuses a file whose header has no column `column` names (exact, or the one of its form): exit 2 before anything is sent. */
export function requireColumn(flag: string, column: string, header: readonly string[], file: string): void {
  const form = columnForm(column);
  if (header.includes(column) || header.filter((name) => columnForm(name) === form).length === 1) return;
  const shown = header
    .slice(0, 20)
    .map((name) => quoteInput(name))
    .join(', ');
  throw new UsageError(
    `${flag} ${quoteInput(column)}: ${file} has no such column (its columns: ${shown})`,
    'name the column that identifies a row across runs, as its header spells it',
    'unknown_column',
  );
}

function keysOf(rows: readonly InputRow[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key in row.values ?? {}) keys.add(key);
  return [...keys];
}
