import { extendsLabel } from '../endpoints/field-names.js';

/**
 * The CONTACT fields as one refresh of the snapshot saw them: each key's label, which is how the
 * export keyed the field in the rows it fetched then (the spec: "keyed by field label"). A value
 * read back under a label is the field's only when no other field can be shown under that label:
 * two fields sharing one are shown as the export likes (the emulator appends " (key)" to the
 * second), so a label that extends a shared one with " (" may hold another field's value.
 */
export class FieldLabels {
  private readonly owners = new Map<string, string[]>();
  private readonly shared: string[];

  /** `labels`: field key -> label. */
  constructor(private readonly labels: ReadonlyMap<string, string>) {
    for (const [key, label] of labels) this.owners.set(label, [...(this.owners.get(label) ?? []), key]);
    this.shared = [...this.owners].filter(([, keys]) => keys.length > 1).map(([label]) => label);
  }

  /** The label the field had, or undefined when it did not exist. */
  labelOf(key: string): string | undefined {
    return this.labels.get(key);
  }

  /** Why the value under this field's label may be another field's; undefined when it cannot be. */
  doubt(key: string): string | undefined {
    const label = this.labels.get(key);
    if (label === undefined) return undefined;
    const owners = this.owners.get(label) ?? [];
    if (owners.length > 1) return `the export shows fields ${owners.join(' and ')} under one label, "${label}"`;
    const base = this.shared.find((s) => extendsLabel(label, s));
    if (base === undefined) return undefined;
    const sharing = `the fields sharing the label "${base}" (${this.owners.get(base)!.join(', ')})`;
    return `field "${key}" is labelled "${label}", which is how the export may show one of ${sharing}`;
  }
}
