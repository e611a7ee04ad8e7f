// The names of the contacts stream's field properties (docs/singer.md, "Property names"): a
// field's key, prefixed `field_` when it is a name the stream or a target already uses. A key
// that itself starts with `field_` is prefixed too, so the rule needs no knowledge of the other
// keys and never maps two keys to one name: a prefixed name starts with `field_`, an unprefixed
// one never does, and the prefix is removed exactly once. The same key always gets the same name.

/** Column names the Singer SDK's targets add themselves (`_sdc_extracted_at`, `_sdc_deleted_at`, ...): any case. */
const TARGET_RESERVED = /^_sdc_/i;

/** Whether a field key is prefixed besides the contact members' names (schemas.ts). */
export function renamedKey(key: string): boolean {
  return TARGET_RESERVED.test(key) || key.startsWith('field_');
}
