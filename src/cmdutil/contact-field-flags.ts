import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { DATA_TYPES, type DataType } from '../endpoints/fields.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { looseJson } from '../json/exact-json.js';
import { setOwn } from '../lib/own-key.js';
import { coerceValue } from '../input/coerce.js';
import { readFieldDefinitions, type DefinitionsByType } from '../records/field-cache.js';
import { fieldCacheDepsOf } from './context-deps.js';
import { flag, withBrief } from './flags.js';
import { checkFieldKeys, checkSetNames } from '../contacts/field-keys.js';

/** Commander collector for repeatable `key=value` options, the value kept as typed. */
function collectRawPair(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  return [...previous, [value.slice(0, eq).trim(), value.slice(eq + 1)]];
}

/** A repeatable `key=value` field flag: key and raw value, in order (collectRawPair). */
const pairsFlag = (flags: string, description: string) =>
  flag(flags, description, z.array(z.tuple([z.string(), z.string()])).optional(), { parse: collectRawPair });

/** The field flags of `contacts upsert`: by definition, as a string (-f) or as JSON (-F), for the contact and its company. */
export const FIELD_FLAGS = {
  field: withBrief(
    pairsFlag('--field <key=value>', "contact field (repeatable); value converted to the field's data type"),
    'contact field, typed by its definition',
  ),
  rawField: withBrief(
    pairsFlag('-f, --raw-field <key=value>', 'contact field sent as a string, as typed (repeatable)'),
    'contact field sent as a string',
  ),
  typedField: withBrief(
    pairsFlag(
      '-F, --typed-field <key=value>',
      'contact field sent as JSON when it parses: true, false, null, numbers, objects (repeatable)',
    ),
    'contact field sent as JSON when it parses',
  ),
  companyField: withBrief(
    pairsFlag('--company-field <key=value>', "field of the contact's company (repeatable); converted like --field"),
    'company field, typed like --field',
  ),
  companyRawField: pairsFlag('--company-raw-field <key=value>', 'company field sent as a string (repeatable)'),
  companyTypedField: withBrief(
    pairsFlag('--company-typed-field <key=value>', 'company field sent as JSON when it parses (repeatable)'),
    'company field sent as JSON when it parses',
  ),
};

type FieldFlagOpt = keyof typeof FIELD_FLAGS;

/** What happens when the definitions cannot be read: the keys go unchecked, values as given. */
const FALLBACK = 'field keys are not checked, and --field values are sent as JSON when they parse, else as strings';
type FieldFlagValues = Partial<Record<FieldFlagOpt, Array<[string, string]>>>;

/** The three spellings of one map: by definition, raw string (-f) and typed (-F), as gh's api. */
interface FieldGroup {
  body: 'fields' | 'companyFields';
  objectType: 'CONTACT' | 'COMPANY';
  byDefinition: { opt: FieldFlagOpt; flag: string };
  raw: { opt: FieldFlagOpt; flag: string };
  typed: { opt: FieldFlagOpt; flag: string };
}

const GROUPS: readonly FieldGroup[] = [
  {
    body: 'fields',
    objectType: 'CONTACT',
    byDefinition: { opt: 'field', flag: '--field' },
    raw: { opt: 'rawField', flag: '-f/--raw-field' },
    typed: { opt: 'typedField', flag: '-F/--typed-field' },
  },
  {
    body: 'companyFields',
    objectType: 'COMPANY',
    byDefinition: { opt: 'companyField', flag: '--company-field' },
    raw: { opt: 'companyRawField', flag: '--company-raw-field' },
    typed: { opt: 'companyTypedField', flag: '--company-typed-field' },
  },
];

export type FlagFields = { fields?: Record<string, unknown>; companyFields?: Record<string, unknown> };

const pairsOf = (opts: FieldFlagValues, opt: FieldFlagOpt) => opts[opt] ?? [];

/**
 * The `fields` and `companyFields` the flags give. Every flag's keys (and --set's names) are
 * checked against the field definitions, read once and cached: a key no field has, or a
 * read-only field, is a usage error naming the nearest key (contacts/field-keys.ts). `--field`/
 * `--company-field` values are converted by the field's definition (dataType); definitions
 * that cannot be read leave keys unchecked and values as JSON when it parses, else the string.
 * `-f` is always a string, `-F` typed as JSON (true, false, null, numbers, objects). A value
 * that does not fit its field's type is a usage error, before anything is sent.
 */
export async function resolveFieldFlags(
  ctx: Context,
  opts: FieldFlagValues & { set?: ReadonlyArray<readonly [string, unknown]> },
): Promise<FlagFields> {
  const result: FlagFields = {};
  for (const group of GROUPS) assertNoRepeats(opts, group);
  // Every field flag's keys are checked against the definitions (and --set's names against them), before anything is sent.
  const keysOf = (g: FieldGroup) =>
    [g.byDefinition, g.raw, g.typed].map(({ opt, flag }) => ({
      flag,
      objectType: g.objectType,
      keys: pairsOf(opts, opt).map(([k]) => k),
    }));
  const setNames = (opts.set ?? []).map(([name]) => name);
  const needed = GROUPS.filter((g) => setNames.length > 0 || keysOf(g).some((f) => f.keys.length > 0));
  let read =
    needed.length > 0
      ? await readFieldDefinitions(
          fieldCacheDepsOf(ctx),
          needed.map((g) => g.objectType),
          { fallback: FALLBACK },
        )
      : undefined;
  // A field created since the cache was written: ask the server once more.
  let current = true;
  if (
    read?.fromCache &&
    needed.some((g) => keysOf(g).some((f) => f.keys.some((k) => !read!.definitions.get(g.objectType)?.has(k))))
  ) {
    const fresh = await readFieldDefinitions(
      fieldCacheDepsOf(ctx),
      needed.map((g) => g.objectType),
      { refresh: true, quiet: true },
    );
    // Unreadable now: the cached definitions still hold for the keys they list, and cannot refuse the others.
    current = fresh !== undefined;
    read = fresh ?? read;
  }
  if (read) {
    checkFieldKeys(needed.flatMap(keysOf), read.definitions, { unknown: current });
    checkSetNames(
      setNames,
      needed.map((g) => ({ flag: g.byDefinition.flag, defs: read!.definitions.get(g.objectType) })),
    );
  }
  for (const group of GROUPS) {
    // Own members whatever the key: a field keyed `__proto__` is sent, not made the object's prototype.
    const values: Record<string, unknown> = {};
    for (const [key, raw] of pairsOf(opts, group.byDefinition.opt))
      setOwn(values, key, byDefinition(group, key, raw, read?.definitions));
    for (const [key, raw] of pairsOf(opts, group.raw.opt)) setOwn(values, key, raw);
    for (const [key, raw] of pairsOf(opts, group.typed.opt)) setOwn(values, key, looseJson(raw));
    if (Object.keys(values).length > 0) result[group.body] = values;
  }
  return result;
}

function byDefinition(
  group: FieldGroup,
  key: string,
  raw: string,
  definitions: DefinitionsByType | undefined,
): unknown {
  const def = definitions?.get(group.objectType)?.get(key);
  const dataType =
    def && (DATA_TYPES as readonly string[]).includes(def.dataType) ? (def.dataType as DataType) : undefined;
  // Unknown to the definitions (the API judges the key) or of a type this client does not know.
  if (!dataType) return looseJson(raw);
  const coerced = coerceValue(raw, dataType);
  if (coerced.ok) return coerced.value;
  throw new UsageError(
    `${group.byDefinition.flag} ${key}: field "${key}" (${dataType}): ${coerced.reason}`,
    `${group.typed.flag} sends the value as JSON, ${group.raw.flag} as a string, without checking its type`,
    'invalid_field',
  );
}

/** One key under two spellings would make the result depend on which flag is read last. */
function assertNoRepeats(opts: FieldFlagValues, group: FieldGroup): void {
  const seen = new Map<string, string>();
  for (const { opt, flag } of [group.byDefinition, group.raw, group.typed]) {
    for (const key of new Set(pairsOf(opts, opt).map(([k]) => k))) {
      const other = seen.get(key);
      if (other)
        throw new UsageError(`${other} and ${flag} both set field "${key}"; give it once`, undefined, 'invalid_field');
      seen.set(key, flag);
    }
  }
}
