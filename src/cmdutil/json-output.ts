import type { z } from 'zod';

// A command's JSON output, declared once beside its flag table (`output` of its module): the
// help's JSON OUTPUT section, docs/output.md's table and test/cli/json-contract.test.ts all
// come from it. Types only from zod here: the text is derived from the schemas' definitions,
// and only when help or the docs ask (the schemas are built by the declaration's function).

/** One document a command prints, and when. */
export interface JsonDocument {
  /** The flags that choose it (`with --file`); none for the command's usual document. */
  when?: string;
  /** What it is, before its shape (`the run summary`, `an array of campaigns as the API sends them`). */
  what?: string;
  schema: z.ZodType;
  /** NDJSON: every line is one document of the schema (and -q applies to each). */
  lines?: boolean;
  /** Words after the shape (`with --json or -q ...`). */
  note?: string;
  /** The shape in words, for the help page only, where the whole of it is too long (docs/output.md keeps the whole). */
  brief?: string;
}

/** What a command prints with --json (and piped): its documents, the first its usual one. */
export interface JsonOutput {
  documents: readonly JsonDocument[];
  /** Said after every document. */
  note?: string;
}

/** Zod's definition, as far as the text needs it. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  innerType?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: readonly unknown[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** The schema inside optional, nullable, default..., and whether it was optional. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  for (let def = defOf(inner); WRAPPERS.has(def.type) || def.type === 'pipe'; def = defOf(inner)) {
    if (def.type === 'optional') optional = true;
    inner = (def.type === 'pipe' ? def.in : def.innerType) as z.ZodType;
  }
  return { inner, optional };
}

const descriptionOf = (schema: z.ZodType): string | undefined => (schema as { description?: string }).description;

/** A member of an object: its name, `?` when it may be absent, its shape when it has one, its description. */
function member(name: string, schema: z.ZodType): string {
  const { inner, optional } = unwrap(schema);
  const def = defOf(inner);
  const shape = ['object', 'array', 'record', 'union', 'literal', 'enum', 'custom'].includes(def.type)
    ? `: ${shapeOf(inner)}`
    : '';
  // A custom schema's description is its shape (src/json/own-record.ts).
  const described = def.type === 'custom' ? undefined : (descriptionOf(schema) ?? descriptionOf(inner));
  return `${name}${optional ? '?' : ''}${shape}${described ? ` (${described})` : ''}`;
}

/**
 * The shape of a schema in the help's notation: `{a, b?, c: {d}}` (`...` when members past
 * these are kept), `[item]`, `{KEY: value}`, `a or b`, `'literal'`, `x|y` for an enum.
 */
export function shapeOf(schema: z.ZodType): string {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'object': {
      const members = Object.entries(def.shape ?? {}).map(([name, s]) => member(name, s));
      const open = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
      return `{${[...members, ...(open ? ['...'] : [])].join(', ')}}`;
    }
    case 'array':
      return `[${shapeOf(def.element as z.ZodType)}]`;
    case 'record':
      return `{${descriptionOf(def.keyType as z.ZodType) ?? 'KEY'}: ${shapeOf(def.valueType as z.ZodType)}}`;
    case 'union':
      return (def.options ?? []).map(shapeOf).join(' or ');
    case 'literal':
      return (def.values ?? []).map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join('|');
    case 'enum':
      return Object.values(def.entries ?? {}).join('|');
    case 'unknown':
    case 'any':
      return 'any JSON';
    case 'custom':
      return descriptionOf(inner) ?? 'any JSON';
    default:
      return def.type;
  }
}

/**
 * One document in words: `with --file the run summary {...} with --json or -q`; `brief`: the help's
 * short form where it has one.
 */
function describeDocument(doc: JsonDocument, brief: boolean): string {
  // Any JSON at all (an item of `cnv api --paginate`) has no shape to show past its words.
  const shape =
    brief && doc.brief !== undefined
      ? doc.brief
      : doc.what && ['unknown', 'any'].includes(defOf(unwrap(doc.schema).inner).type)
        ? undefined
        : shapeOf(doc.schema);
  return [doc.when, doc.lines ? 'NDJSON, one line each:' : undefined, doc.what, shape, doc.note]
    .filter(Boolean)
    .join(' ');
}

/**
 * docs/output.md's row of a command, and (`brief`: the documents' short forms where they have one)
 * its help's JSON OUTPUT text.
 */
export function describeOutput(output: JsonOutput, brief = false): string {
  return [output.documents.map((doc) => describeDocument(doc, brief)).join('; '), output.note]
    .filter(Boolean)
    .join('; ');
}
