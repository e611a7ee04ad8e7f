import { columnForm, columnNamer, FormIndex } from '../../input/column-names.js';
import { quoteInput } from '../../input/input-rows.js';
import { suggest } from '../../lib/did-you-mean.js';
import { UsageError } from '../../errors.js';
import {
  exportLabelTarget,
  fieldByName,
  keyOrField,
  nearCandidates,
  type ColumnTarget,
  type FieldsByParent,
} from './field-match.js';

/** How an endpoint names the columns of its input files. */
export interface ColumnRules {
  /** The request, for messages: `POST /v2/contacts`. */
  endpoint: string;
  /** Top-level body keys, matched in any case and spacing and by src/input/column-names.ts's aliases. */
  keys: readonly string[];
  /** The keys that identify a row. */
  identifiers: readonly string[];
  /** Keys whose CSV cell is sent as trimmed text; the other keys' cells are JSON when they parse. */
  text: readonly string[];
  /** Keys holding objects that `parent.key` columns fill (`fields.city`, `data.plan`). */
  objects: readonly string[];
  /** Objects whose keys are fields: a bare column, or `parent.X`, names a field by its key or label. */
  fieldParents?: readonly string[];
  /** Without field definitions, a bare column is a key of the first field parent (records: "every other column is a field"). */
  bareColumnsAreFields?: boolean;
  /** Columns recognised and never sent (the read-only columns of cnv's own export), by name: why. */
  notSent?: Readonly<Record<string, string>>;
  /** Batch adds: columns other than the identifiers are not used (said once), never refused. */
  identifiersOnly?: boolean;
  /**
   * The columns cnv's own export writes before its field columns (contacts: `id` ... `updatedAt`,
   * `_extra`). A header holding them all is that export: its other columns are the field labels
   * it wrote (`fields.<label>` where a label clashed), matched to their fields first.
   */
  exportColumns?: readonly string[];
}

/** What the user said about the file's columns. */
export interface ColumnFlags {
  /** --map and --map-file: column -> target (a key, `fields.KEY`, a field key or label, `body.NAME`, or `-`). */
  map: ReadonlyArray<{ column: string; target: string; source: string }>;
  /** --ignore-column: never sent (`''` names an unnamed column, a pandas or R row index). */
  ignore: readonly string[];
  /** --ignore-unknown-columns. */
  ignoreUnknown: boolean;
  /** --pass-column: sent as a top-level body key under its own name (the spec's unnamed members). */
  pass: readonly string[];
  /** --key-column of contacts sync: the column keying a ledger's rows, left out when it names nothing the endpoint takes. */
  key?: string;
}

export const NO_COLUMN_FLAGS: ColumnFlags = { map: [], ignore: [], ignoreUnknown: false, pass: [] };

/** A column and where it goes, as the run shows it. */
export interface ResolvedColumn {
  column: string;
  target: ColumnTarget;
  /** How it was decided: `--map`, `map file line 3`, or undefined for the column's own name. */
  via?: string;
  /** The target a --map or map file gave, as written. */
  mapTarget?: string;
}

// A column named like this holds a contact id only when it is one (a UUID): a CRM's own
// "Contact ID" (HubSpot's numbers) must not hide the row's email.
const LENIENT_ID = new Set(['contactid', 'id']);
// Enough for any real header; a JSON file inventing keys row after row is not cached without end.
const CACHED_NAMES = 100_000;

/**
 * Resolves column names (a CSV header, the top-level keys of JSON rows) to what the endpoint
 * takes, once per name. Without definitions, a name that could only be a field resolves to
 * `{ kind: 'unknown', why: 'definitions' }`: the caller reads them and asks again.
 */
export class ColumnResolver {
  private readonly namer: (name: string) => string;
  private readonly objectNamer: (name: string) => string;
  private readonly cache = new Map<string, ResolvedColumn>();
  /** The file's column names met so far: a flag names a column by its form only when none is spelt exactly so. */
  private readonly names = new Set<string>();
  // Every lookup a name makes is by key, never a search of a list: 20,000 columns against
  // 50,000 map lines took minutes, quadratic in both (docs/batches.md, "Columns").
  private readonly namesByForm = new FormIndex();
  private readonly maps = new Map<string, ColumnFlags['map'][number]>();
  private readonly mapsByForm = new FormIndex();
  private readonly ignored: ReadonlySet<string>;
  private readonly ignoredByForm = new FormIndex();
  private readonly passed: ReadonlySet<string>;
  private readonly notSentByForm = new Map<string, string>();
  /** The candidates of "did you mean", made once per set of definitions. */
  private nearCandidates: Map<string, string> | undefined;
  /** The definitions were asked for and could not be read. */
  private unreadable = false;
  /** The header is cnv's own export: its field columns are labels. */
  private exportHeader = false;

  constructor(
    readonly rules: ColumnRules,
    private readonly flags: ColumnFlags = NO_COLUMN_FLAGS,
    private definitions?: FieldsByParent,
  ) {
    this.namer = columnNamer(rules.keys);
    this.objectNamer = columnNamer(rules.objects);
    for (const m of flags.map) {
      if (!this.maps.has(m.column)) this.maps.set(m.column, m);
      this.mapsByForm.add(m.column);
    }
    this.ignored = new Set(flags.ignore);
    for (const column of flags.ignore) if (column !== '') this.ignoredByForm.add(column);
    this.passed = new Set(flags.pass);
    for (const [column, why] of Object.entries(rules.notSent ?? {}))
      if (!this.notSentByForm.has(columnForm(column))) this.notSentByForm.set(columnForm(column), why);
    for (const { target, source } of flags.map) this.checkTarget(target, source);
  }

  /** Whether field definitions could change how `names` resolve. */
  needsDefinitions(names: Iterable<string>): boolean {
    if (!this.rules.fieldParents?.length || this.definitions) return false;
    for (const name of names) {
      // cnv's export: its field columns are labels, told from body keys only by the definitions.
      if (this.exportHeader && !this.rules.exportColumns!.includes(name)) return true;
      const t = this.resolve(name).target;
      if (
        (t.kind === 'unknown' && t.why === 'definitions') ||
        (t.kind === 'nested' && this.rules.fieldParents.includes(t.parent))
      )
        return true;
      // A key by another spelling (`Contact ID`) may also be a field's label: only the definitions tell.
      if (t.kind === 'key' && this.mayAlsoBeField(name, t.key)) return true;
    }
    return false;
  }

  /** Supplies the definitions (undefined: they could not be read); names resolve anew. */
  useDefinitions(definitions: FieldsByParent | undefined): void {
    this.definitions = definitions ?? new Map();
    this.unreadable = definitions === undefined;
    this.cache.clear();
    this.nearCandidates = undefined;
    for (const { target, source } of this.flags.map) this.checkTarget(target, source);
  }

  /** The file's column names (a header, or JSON keys as they are met); a header of cnv's export switches to its labels. */
  meet(names: readonly string[], header = false): void {
    for (const name of names) {
      if (this.names.has(name)) continue;
      this.names.add(name);
      this.namesByForm.add(name);
    }
    const marks = this.rules.exportColumns;
    if (header && marks?.length && marks.every((c) => names.includes(c))) {
      this.exportHeader = true;
      this.cache.clear();
    }
  }

  /** The --map and --map-file entries. */
  flagMaps(): ColumnFlags['map'] {
    return this.flags.map;
  }

  /** The --key-column (contacts sync), if any. */
  get keyColumn(): string | undefined {
    return this.flags.key;
  }

  /** Whether the header was recognised as cnv's own export. */
  get isExportHeader(): boolean {
    return this.exportHeader;
  }

  get hasDefinitions(): boolean {
    return this.definitions !== undefined && this.definitions.size > 0;
  }

  resolve(name: string): ResolvedColumn {
    let found = this.cache.get(name);
    if (!found) {
      found = this.decide(name);
      if (this.cache.size < CACHED_NAMES) this.cache.set(name, found);
    }
    return found;
  }

  private decide(name: string): ResolvedColumn {
    const mapped = this.maps.get(name) ?? this.byForm(this.mapsByForm, name, (c) => this.maps.get(c));
    if (mapped)
      return {
        column: name,
        target: this.targetOf(mapped.target, mapped.source),
        via: mapped.source,
        mapTarget: mapped.target,
      };
    if (this.ignored.has(name) || (name !== '' && this.byForm(this.ignoredByForm, name, (c) => c) !== undefined)) {
      return { column: name, target: { kind: 'skip', why: 'ignored (--ignore-column)' } };
    }
    if (this.passed.has(name)) return { column: name, target: { kind: 'pass', key: name }, via: '--pass-column' };
    const own = this.byName(name);
    if (own.kind !== 'unknown') return { column: name, target: own };
    if (this.rules.identifiersOnly)
      return { column: name, target: { kind: 'skip', why: 'not used: a batch add sends only the identifier' } };
    // A column that names several things is not unknown: --ignore-unknown-columns never drops it.
    if (own.why === 'definitions' || own.ambiguous) return { column: name, target: own };
    // The key names a row across runs; it is sent only when it names something the endpoint takes.
    if (this.isKeyColumn(name)) return { column: name, target: { kind: 'skip', why: 'the key (--key-column)' } };
    if (this.flags.ignoreUnknown)
      return { column: name, target: { kind: 'skip', why: 'ignored (--ignore-unknown-columns)' } };
    return { column: name, target: own };
  }

  /** Whether `name` is the --key-column: its exact name, else the file's one column of its form (as the key is read). */
  private isKeyColumn(name: string): boolean {
    const key = this.flags.key;
    if (key === undefined) return false;
    if (name === key) return true;
    if (this.names.has(key) || columnForm(name) !== columnForm(key)) return false;
    return this.namesByForm.named(columnForm(key)).length === 1;
  }

  /**
   * What a flag names by a column's form (`--ignore-column 'record id'` for `Record ID`): only
   * when the file has no column spelt exactly as the flag, and no other column of that form.
   */
  private byForm<T>(flagged: FormIndex, name: string, pick: (column: string) => T | undefined): T | undefined {
    const form = columnForm(name);
    const candidates = flagged.named(form).filter((c) => !this.names.has(c));
    if (candidates.length !== 1) return undefined;
    const rivals = this.namesByForm.named(form).filter((n) => n !== name);
    return rivals.length === 0 ? pick(candidates[0]) : undefined;
  }

  /** A name resolved by the endpoint's rules alone (no flags); `asTarget`: a --map target, not a column of the file. */
  private byName(name: string, asTarget = false): ColumnTarget {
    if (this.exportHeader && !this.rules.exportColumns!.includes(name)) {
      const label = exportLabelTarget(this.definitions, this.rules.fieldParents?.[0], name);
      if (label) return label;
    }
    const key = this.namer(name);
    if (this.rules.keys.includes(key)) {
      if (this.rules.identifiersOnly && !this.rules.identifiers.includes(key))
        return { kind: 'skip', why: 'not used: a batch add sends only the identifier' };
      const clash =
        this.mayAlsoBeField(name, key) && !this.unreadable
          ? keyOrField(this.definitions, this.rules.fieldParents!, name, key)
          : undefined;
      if (clash) return clash;
      return {
        kind: 'key',
        key,
        ...(key === 'cnvContactId' && LENIENT_ID.has(columnForm(name)) ? { lenient: true } : {}),
      };
    }
    const notSent = this.notSentByForm.get(columnForm(name));
    if (notSent !== undefined) return { kind: 'skip', why: notSent };
    const dot = name.indexOf('.');
    if (dot > 0 && dot < name.length - 1) {
      const parent = this.objectNamer(name.slice(0, dot));
      if (this.rules.objects.includes(parent)) return this.nested(parent, name.slice(dot + 1));
    }
    const parents = this.rules.fieldParents ?? [];
    if (parents.length === 0 || this.rules.identifiersOnly) return this.unknown(name);
    if (!this.hasDefinitions && this.rules.bareColumnsAreFields && this.definitions)
      return { kind: 'nested', parent: parents[0], key: name };
    // Without definitions (not read yet, or unreadable) a bare name cannot be matched to a field.
    if (!this.definitions || this.unreadable) return { kind: 'unknown', why: 'definitions' };
    // cnv's contact export has no COMPANY columns: a column of one that is no CONTACT label now (a
    // field relabelled since the export) never lands on a COMPANY field that has the label.
    return this.field(this.exportHeader && !asTarget ? parents.slice(0, 1) : parents, name);
  }

  /** A field by key or label (field-match.ts), else unknown with the nearest name. */
  private field(parents: readonly string[], name: string): ColumnTarget {
    return fieldByName(this.definitions, parents, name) ?? this.unknown(name);
  }

  /**
   * An unknown name, its nearest key or field worked out only when a message shows it (the
   * first few of a refusal): for every one of 20,000 unknown columns it took seconds.
   */
  private unknown(name: string): ColumnTarget {
    let nearest: { value: string | undefined } | undefined;
    const near = () => (nearest ??= { value: this.nearest(name) }).value;
    return {
      kind: 'unknown',
      get nearest() {
        return near();
      },
    };
  }

  /**
   * Whether a column naming a body key may name a field too: it spells the key otherwise than
   * the key itself (`Contact ID`, `Email Address`, `Subscription status`), in a file whose rules
   * have fields. The key's own name (`cnvContactId`, `email`) is the key, and so are the columns
   * cnv's export wrote (it spells a clashing label `fields.<label>`).
   */
  private mayAlsoBeField(name: string, key: string): boolean {
    if (name === key || !this.rules.fieldParents?.length || this.rules.identifiersOnly) return false;
    return !(this.exportHeader && this.rules.exportColumns!.includes(name));
  }

  private nested(parent: string, key: string): ColumnTarget {
    if (!this.rules.fieldParents?.includes(parent) || !this.hasDefinitions) return { kind: 'nested', parent, key };
    return this.field([parent], key);
  }

  /** The closest key, field key or label, for "did you mean". */
  private nearest(name: string): string | undefined {
    const { keys, identifiers, identifiersOnly } = this.rules;
    const candidates = (this.nearCandidates ??= nearCandidates(
      identifiersOnly ? keys.filter((k) => identifiers.includes(k)) : keys,
      this.definitions,
    ));
    const [best] = suggest(columnForm(name), [...candidates.keys()]);
    return best === undefined ? undefined : candidates.get(best);
  }

  /** A --map target: `-` (leave out), `body.NAME` (pass through), or anything a column could be named. */
  private targetOf(target: string, source: string): ColumnTarget {
    if (target === '-') return { kind: 'skip', why: `ignored (${source})` };
    if (target.startsWith('body.') && target.length > 5) return { kind: 'pass', key: target.slice(5) };
    const t = this.byName(target, true);
    if (t.kind === 'unknown' && t.why === 'definitions') return t;
    if (t.kind === 'unknown' || t.kind === 'skip') {
      throw new UsageError(
        `${source}: ${quoteInput(target)} is not something ${this.rules.endpoint} takes${notATarget(t)}`,
        'a target is a body key, fields.KEY, a field key or label, body.NAME (sent as it is), or - (left out)',
        'unknown_column',
      );
    }
    return t;
  }

  /** Targets that need no definitions are checked at once, before the file is read. */
  private checkTarget(target: string, source: string): void {
    this.targetOf(target, source);
  }
}

/** Why a --map target is refused (the reason it was skipped, or the ambiguity), or the nearest name. */
function notATarget(t: Extract<ColumnTarget, { kind: 'unknown' | 'skip' }>): string {
  if (t.kind === 'skip' || t.ambiguous) return ` (${t.why})`;
  return t.nearest ? `; nearest: ${t.nearest}` : '';
}
