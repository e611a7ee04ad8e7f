import { escapeControl } from '../../lib/terminal-text.js';
import type { ResolvedColumn } from './column-resolver.js';

/** One column of the run's column table, as --summary-json gives it. */
export interface ColumnEntry {
  column: string;
  /** Where its cells go (`email`, `fields.firstName`, `syncToCrm`), or null when they are not sent. */
  sentAs: string | null;
  /** Why, or how: `identifier`, `CONTACT field "First name", STRING, by label`, `ignored (--ignore-column)`. */
  note: string;
  /** `--map`, `map file line 3`, `--pass-column`, when a flag decided. */
  via?: string;
}

/** The table's rows: what each column became; columns sharing a destination say so (a row may fill only one). */
export function columnEntries(columns: readonly ResolvedColumn[], identifiers: readonly string[]): ColumnEntry[] {
  const entries = columns.map(({ column, target, via }) => {
    const entry = (sentAs: string | null, note: string): ColumnEntry => ({
      column,
      sentAs,
      note,
      ...(via ? { via } : {}),
    });
    switch (target.kind) {
      case 'key':
        if (target.lenient)
          return entry(target.key, "identifier when it holds a UUID; else the row's other identifier is used");
        return entry(target.key, identifiers.includes(target.key) ? 'identifier' : 'body member, as written');
      case 'field':
        return entry(
          `${target.parent}.${target.key}`,
          `${target.def.objectType} field ${JSON.stringify(target.def.label)}, ${target.def.dataType}, by ${target.by}`,
        );
      case 'nested':
        return entry(`${target.parent}.${target.key}`, 'JSON when it parses, else text');
      case 'pass':
        return entry(target.key, 'passed through as it is');
      case 'skip':
        return entry(null, target.why);
      case 'unknown':
        return entry(null, 'unknown');
    }
  });
  // Grouped by destination: comparing every pair was quadratic (20,000 columns: seconds).
  const bySent = new Map<string, ColumnEntry[]>();
  for (const e of entries) {
    if (e.sentAs === null) continue;
    const group = bySent.get(e.sentAs);
    if (group) group.push(e);
    else bySent.set(e.sentAs, [e]);
  }
  for (const group of bySent.values()) {
    if (group.length < 2) continue;
    for (const e of group)
      e.note += `; so does ${group
        .filter((o) => o !== e)
        .map((o) => JSON.stringify(o.column))
        .join(', ')}: a row filling both is invalid`;
  }
  return entries;
}

/**
 * The table as stderr lines under `title`: `  First name  -> fields.firstName  (CONTACT field
 * "First name", STRING, by label)`; names masked (`redact`) before they are padded.
 */
export function columnTableLines(
  title: string,
  entries: readonly ColumnEntry[],
  redact: (text: string) => string = (t) => t,
): string[] {
  const shown = entries.map((e) => ({
    name: escapeControl(redact(JSON.stringify(e.column).slice(1, -1))) || '(unnamed)',
    e,
  }));
  // A loop, not Math.max(...list): a spread of a header's 100,000 columns overflows the stack.
  let width = 0;
  let sentWidth = 0;
  for (const s of shown) {
    width = Math.min(28, Math.max(width, s.name.length));
    sentWidth = Math.min(28, Math.max(sentWidth, (s.e.sentAs ?? 'not sent').length));
  }
  return [
    `${escapeControl(title)}:`,
    ...shown.map(({ name, e }) => {
      const sent = e.sentAs ?? 'not sent';
      return `  ${name.padEnd(width)}  -> ${sent.padEnd(sentWidth)}  (${escapeControl(e.note)}${e.via ? `; ${e.via}` : ''})`;
    }),
  ];
}
