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

/**
 * Every relationship value of one business, indexed by source, by resolved target and, for
 * pending ones, by target object type, so a target that appears resolves what waits for it.
 */
export class RelationshipLinks {
  private readonly bySource = new Map<string, RelationshipLink>();
  private readonly sourceIndex = new Map<string, Set<string>>();
  private readonly byTarget = new Map<string, Set<RelationshipLink>>();
  private readonly pendingByType = new Map<ObjectType, Set<RelationshipLink>>();

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

  /** Pending links whose target is of this object type. */
  pending(targetType: ObjectType): RelationshipLink[] {
    return [...(this.pendingByType.get(targetType) ?? [])];
  }

  /** Stores a link (replacing the source field's earlier one, which the caller removed). */
  add(link: RelationshipLink, targetType: ObjectType): void {
    const id = linkId(link.sourceId, link.fieldKey);
    this.bySource.set(id, link);
    let ids = this.sourceIndex.get(link.sourceId);
    if (!ids) this.sourceIndex.set(link.sourceId, (ids = new Set()));
    ids.add(id);
    if (link.targetId) addTo(this.byTarget, link.targetId, link);
    else addTo(this.pendingByType, targetType, link);
  }

  /** Marks a pending link resolved. */
  resolve(link: RelationshipLink, targetType: ObjectType, targetId: string): void {
    this.pendingByType.get(targetType)?.delete(link);
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
    else this.pendingByType.get(targetType)?.delete(link);
    return link;
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
