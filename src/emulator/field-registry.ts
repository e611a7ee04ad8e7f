import type { StoredField, ObjectType } from './model.js';

/**
 * Field definitions of one business. Keys are unique across the whole account (the spec's
 * Create field rule), so one map by key suffices; scope filters give per-object views.
 */
export class FieldRegistry {
  private readonly byKey = new Map<string, StoredField>();

  /** Adds a definition; throws when the key is already used anywhere in the account. */
  add(def: StoredField): StoredField {
    if (this.byKey.has(def.key)) throw new Error(`duplicate field key ${def.key}`);
    this.byKey.set(def.key, def);
    return def;
  }

  hasKey(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The definition with this key on this object (and custom object), if any. */
  get(objectType: ObjectType, key: string, customObjectId?: string): StoredField | undefined {
    const def = this.byKey.get(key);
    if (!def || def.objectType !== objectType) return undefined;
    if (customObjectId !== undefined && def.customObjectId !== customObjectId) return undefined;
    return def;
  }

  /** Definitions in creation order, optionally only those of one object type. */
  list(objectType?: ObjectType, customObjectId?: string): StoredField[] {
    return [...this.byKey.values()].filter(
      (d) =>
        (objectType === undefined || d.objectType === objectType) &&
        (customObjectId === undefined || d.customObjectId === customObjectId),
    );
  }

  /** Gives the field with this key a new label (emulator admin: a relabel in the dashboard). */
  relabel(key: string, label: string): StoredField | undefined {
    const def = this.byKey.get(key);
    if (def) def.label = label;
    return def;
  }

  /** Removes the definition with this key; its key is free again. */
  delete(key: string): boolean {
    return this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}
