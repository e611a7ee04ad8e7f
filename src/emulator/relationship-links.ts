import type { ObjectType } from './model.js';

/** One written relationship value: the source side's field and the target it names. */
export interface RelationshipLink {
  /** Object type of the record holding the source field. */
  sourceType: ObjectType;
  /** Id of that record (contact, company, custom-object record). */
  sourceId: string;
  /** The source field's key (keys are unique in the account). */
  fieldKey: string;
  /** The value as written: the target's clientDedupKey (or email, for contacts). */
  value: string;
  /** Id of the resolved target, or null while the relationship is pending. */
  targetId: string | null;
}

const linkId = (sourceId: string, fieldKey: string) => `${sourceId}\u0000${fieldKey}`;
// Pending links are found by their value folded like an email (trimmed, lower case): a superset
// of the exact matches (userId, clientDedupKey) and of the case-insensitive email fallback.
const fold = (value: string) => value.trim().toLowerCase();

/**
 * Every relationship value of one business, indexed by source, by resolved target and, for
 * pending ones, by target object type, so a target that appears resolves what waits for it.
 */
export class RelationshipLinks {
  private readonly bySource = new Map<string, RelationshipLink>();
  private readonly sourceIndex = new Map<string, Set<string>>();
  private readonly byTarget = new Map<string, Set<RelationshipLink>>();
  private readonly pendingByType = new Map<ObjectType, Map<string, Set<RelationshipLink>>>();

  get(sourceId: string, fieldKey: string): RelationshipLink | undefined {
    return this.bySource.get(linkId(sourceId, fieldKey));
  }

  /** The links written on one source record, in field order of writing. */
  ofSource(sourceId: string): RelationshipLink[] {
    return [...(this.sourceIndex.get(sourceId) ?? [])].map((id) => this.bySource.get(id)!).filter(Boolean);
  }

  /** The resolved links pointing at one target, in the order they were made. */
  toTarget(targetId: string): RelationshipLink[] {
    return [...(this.byTarget.get(targetId) ?? [])];
  }

  /**
   * Pending links whose target is of this object type and whose value may name a target with
   * one of these keys (the caller confirms); every pending link of the type without keys.
   */
  pending(targetType: ObjectType, keys?: readonly string[]): RelationshipLink[] {
    const byValue = this.pendingByType.get(targetType);
    if (!byValue) return [];
    if (!keys) return [...byValue.values()].flatMap((set) => [...set]);
    return [...new Set(keys.flatMap((k) => [...(byValue.get(fold(k)) ?? [])]))];
  }

  /** Stores a link (replacing the source field's earlier one, which the caller removed). */
  add(link: RelationshipLink, targetType: ObjectType): void {
    const id = linkId(link.sourceId, link.fieldKey);
    this.bySource.set(id, link);
    let ids = this.sourceIndex.get(link.sourceId);
    if (!ids) this.sourceIndex.set(link.sourceId, (ids = new Set()));
    ids.add(id);
    if (link.targetId) addTo(this.byTarget, link.targetId, link);
    else this.addPending(link, targetType);
  }

  /** Marks a pending link resolved. */
  resolve(link: RelationshipLink, targetType: ObjectType, targetId: string): void {
    this.removePending(link, targetType);
    link.targetId = targetId;
    addTo(this.byTarget, targetId, link);
  }

  /** Removes the link of one source field; returns it (with its target) or undefined. */
  remove(sourceId: string, fieldKey: string, targetType: ObjectType): RelationshipLink | undefined {
    const id = linkId(sourceId, fieldKey);
    const link = this.bySource.get(id);
    if (!link) return undefined;
    this.bySource.delete(id);
    this.sourceIndex.get(sourceId)?.delete(id);
    if (link.targetId) this.byTarget.get(link.targetId)?.delete(link);
    else this.removePending(link, targetType);
    return link;
  }

  private addPending(link: RelationshipLink, targetType: ObjectType): void {
    let byValue = this.pendingByType.get(targetType);
    if (!byValue) this.pendingByType.set(targetType, (byValue = new Map()));
    addTo(byValue, fold(link.value), link);
  }

  private removePending(link: RelationshipLink, targetType: ObjectType): void {
    const byValue = this.pendingByType.get(targetType);
    const set = byValue?.get(fold(link.value));
    set?.delete(link);
    if (set?.size === 0) byValue!.delete(fold(link.value));
  }

  clear(): void {
    this.bySource.clear();
    this.sourceIndex.clear();
    this.byTarget.clear();
    this.pendingByType.clear();
  }
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}
