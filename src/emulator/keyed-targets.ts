import type { FieldMap, ObjectType } from './model.js';

/** Standard objects a relationship can point at by clientDedupKey, besides contacts. */
export const KEYED_TARGET_TYPES = ['COMPANY', 'OPPORTUNITY', 'CAMPAIGN', 'CAMPAIGN_MEMBER'] as const;
export type KeyedTargetType = (typeof KEYED_TARGET_TYPES)[number];

/**
 * The source-system key (clientDedupKey) of a company, opportunity, campaign or campaign
 * member. The spec shows no shape for these and no API that creates them, so the emulator
 * keeps only what relationships need: the key, the object's id, and the reverse relationship
 * values maintained on it (`fields`; a company's live in the company itself).
 */
interface KeyedTarget {
  objectType: KeyedTargetType;
  id: string;
  clientDedupKey: string;
  fields: FieldMap;
  createdAt: string;
}

const keyOf = (type: ObjectType, clientDedupKey: string) => `${type}\u0000${clientDedupKey}`;

/** Keyed targets of one business, by (object type, clientDedupKey) and by id. */
export class KeyedTargets {
  private readonly byKey = new Map<string, KeyedTarget>();
  private readonly byId = new Map<string, KeyedTarget>();

  /** Registers a target; a key already used for this object type is replaced. */
  add(target: KeyedTarget): KeyedTarget {
    const old = this.byKey.get(keyOf(target.objectType, target.clientDedupKey));
    if (old) this.byId.delete(old.id);
    this.byKey.set(keyOf(target.objectType, target.clientDedupKey), target);
    this.byId.set(target.id, target);
    return target;
  }

  find(type: ObjectType, clientDedupKey: string): KeyedTarget | undefined {
    return this.byKey.get(keyOf(type, clientDedupKey));
  }

  get(id: string): KeyedTarget | undefined {
    return this.byId.get(id);
  }

  list(): KeyedTarget[] {
    return [...this.byKey.values()];
  }

  clear(): void {
    this.byKey.clear();
    this.byId.clear();
  }
}
