import type { StoredField, FieldMap, ObjectType, RelationshipInfo } from './model.js';
import type { RelationshipLink } from './relationship-links.js';
import type { BusinessStore } from './store.js';
import { isValidEmail } from './validate.js';

/**
 * `stamp: false` (seeding) maintains reverse values without moving any updatedAt. `touched`
 * collects the targets whose reverse side changed instead of refreshing them at once: a batch
 * refreshes each target once (refreshTargets), not once per record linking to it.
 */
interface LinkOptions {
  stamp: boolean;
  touched?: Touched;
}

/** Targets whose reverse side needs refreshing: target id -> object type. */
export type Touched = Map<string, ObjectType>;

/**
 * The id of the record a relationship value points at (spec rule 2: the target's
 * clientDedupKey, with an email fallback for contacts), or undefined when it does not exist:
 * the relationship is then pending, and targets are never created.
 * - CONTACT: a contact has no other client-supplied key than its userId (the external user
 *   id), so the value is matched to the userId, then to the email (most recently updated).
 * - CUSTOM_OBJECT: the target record's clientDedupKey in the target custom object.
 * - COMPANY, OPPORTUNITY, CAMPAIGN, CAMPAIGN_MEMBER: the clientDedupKey registered for the
 *   object (keyed-targets.ts); an archived campaign is not found.
 */
function resolveRelationship(store: BusinessStore, rel: RelationshipInfo, value: string): string | undefined {
  switch (rel.targetObjectType) {
    case 'CONTACT': {
      const contact =
        store.contacts.findByUserId(value) ??
        (isValidEmail(value.trim()) ? store.contacts.findByEmail(value) : undefined);
      return contact?.id;
    }
    case 'CUSTOM_OBJECT':
      return rel.targetCustomObjectId ? store.records.get(rel.targetCustomObjectId)?.get(value)?.id : undefined;
    case 'CAMPAIGN': {
      const target = store.targets.find('CAMPAIGN', value);
      return target && store.campaigns.get(target.id)?.archived !== true ? target.id : undefined;
    }
    default:
      return store.targets.find(rel.targetObjectType, value)?.id;
  }
}

/**
 * Brings the relationship links of one source record in line with its field values after a
 * write: a changed value is resolved (or left pending), a cleared one unlinked, and the
 * reverse side of every target that gained or lost a source is maintained.
 */
export function syncSourceLinks(
  store: BusinessStore,
  { type: sourceType, id: sourceId, fields }: { type: ObjectType; id: string; fields: FieldMap },
  defs: readonly StoredField[],
  opts: LinkOptions = { stamp: true },
): void {
  const touched: Touched = opts.touched ?? new Map();
  for (const def of defs) {
    const rel = def.relationship;
    if (!rel || rel.reverse) continue;
    const raw = fields[def.key];
    const value = raw === undefined || raw === null || raw === '' ? undefined : String(raw);
    const old = store.links.get(sourceId, def.key);
    if (old?.value === value) continue;
    if (old) {
      store.links.remove(sourceId, def.key, rel.targetObjectType);
      if (old.targetId) touched.set(old.targetId, rel.targetObjectType);
    }
    if (value === undefined) continue;
    const targetId = resolveRelationship(store, rel, value) ?? null;
    store.links.add({ sourceType, sourceId, fieldKey: def.key, value, targetId }, rel.targetObjectType);
    if (targetId) touched.set(targetId, rel.targetObjectType);
  }
  if (!opts.touched) refreshTargets(store, touched, opts);
}

/** Rewrites the reverse side of every touched target once. */
export function refreshTargets(store: BusinessStore, touched: Touched, opts: LinkOptions = { stamp: true }): void {
  for (const [id, type] of touched) refreshReverse(store, type, id, opts);
  touched.clear();
}

/**
 * Resolves the pending relationships whose target is of this object type and now exists (a
 * contact, record or keyed target that appeared or changed key: `keys` are its userId, email
 * or clientDedupKey), and maintains the reverse side of the targets found.
 */
export function settlePending(
  store: BusinessStore,
  targetType: ObjectType,
  keys: ReadonlyArray<string | null>,
  opts: LinkOptions = { stamp: true },
): void {
  for (const link of store.links.pending(
    targetType,
    keys.filter((k): k is string => !!k),
  )) {
    const rel = store.fields.get(link.sourceType, link.fieldKey)?.relationship;
    if (!rel) continue;
    const targetId = resolveRelationship(store, rel, link.value);
    if (!targetId) continue;
    store.links.resolve(link, targetType, targetId);
    if (opts.touched) opts.touched.set(targetId, targetType);
    else refreshReverse(store, targetType, targetId, opts);
  }
}

/** A source record's relationship values: resolved (field key -> target id) and pending (field key -> value). */
export function linksOf(
  store: BusinessStore,
  sourceId: string,
): { relationships: Record<string, string>; pending: Record<string, string> } {
  const relationships: Record<string, string> = {};
  const pending: Record<string, string> = {};
  for (const link of store.links.ofSource(sourceId)) {
    if (link.targetId) relationships[link.fieldKey] = link.targetId;
    else pending[link.fieldKey] = link.value;
  }
  return { relationships, pending };
}

/** The separator of a reverse value that names several sources (as the spec's multi-value form submissions). */
const REVERSE_SEPARATOR = ';';

/**
 * Rewrites the reverse relationship fields of one target from the links pointing at it: each
 * reverse field holds the keys of its sources (clientDedupKey; userId, else email, for a
 * contact), in the order they were linked, joined by ";". No source: the field is unset.
 */
function refreshReverse(store: BusinessStore, targetType: ObjectType, targetId: string, opts: LinkOptions): void {
  const target = targetFields(store, targetType, targetId);
  if (!target) return;
  const links = store.links.toTarget(targetId);
  const next: FieldMap = {};
  for (const def of store.fields.list(targetType, target.customObjectId)) {
    if (!def.relationship?.reverse) continue;
    const keys = links.filter((l) => l.fieldKey === def.relationship!.pairedKey).map((l) => sourceKey(store, l));
    next[def.key] = keys.length > 0 ? keys.join(REVERSE_SEPARATOR) : null;
  }
  const changed = Object.entries(next).some(([k, v]) => (target.fields[k] ?? null) !== v);
  if (changed)
    target.write((fields) => {
      for (const [k, v] of Object.entries(next)) {
        if (v === null) delete fields[k];
        else fields[k] = v;
      }
    }, opts.stamp);
}

function sourceKey(store: BusinessStore, link: RelationshipLink): string {
  switch (link.sourceType) {
    case 'CUSTOM_OBJECT':
      return store.recordsById.get(link.sourceId)?.clientDedupKey ?? link.sourceId;
    case 'CONTACT': {
      const c = store.contacts.get(link.sourceId);
      return c ? (c.userId ?? c.email) : link.sourceId;
    }
    default:
      return store.targets.get(link.sourceId)?.clientDedupKey ?? link.sourceId;
  }
}

/** Where a target keeps its field values, and how a change to them is stamped. */
function targetFields(
  store: BusinessStore,
  type: ObjectType,
  id: string,
):
  | {
      fields: FieldMap;
      customObjectId?: string;
      write(mutate: (fields: FieldMap) => void, stamp: boolean): void;
    }
  | undefined {
  switch (type) {
    case 'CONTACT': {
      const c = store.contacts.get(id);
      if (!c) return undefined;
      return {
        fields: c.fields,
        // Unstamped (seeding) writes touch only fields, which the contact book does not index.
        write: (mutate, stamp) => (stamp ? store.contacts.update(c, (x) => mutate(x.fields), true) : mutate(c.fields)),
      };
    }
    case 'CUSTOM_OBJECT': {
      const r = store.recordsById.get(id);
      if (!r) return undefined;
      return { fields: r.fields, customObjectId: r.customObjectId, write: stamped(r, store) };
    }
    case 'COMPANY': {
      const company = store.companies.get(id);
      if (company) return { fields: company.fields, write: stamped(company, store) };
      break;
    }
  }
  const keyed = store.targets.get(id);
  return keyed ? { fields: keyed.fields, write: (mutate) => mutate(keyed.fields) } : undefined;
}

function stamped(holder: { fields: FieldMap; updatedAt: string }, store: BusinessStore) {
  return (mutate: (fields: FieldMap) => void, stamp: boolean) => {
    mutate(holder.fields);
    if (stamp) holder.updatedAt = store.clock.now();
  };
}
