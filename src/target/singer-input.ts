import { UsageError } from '../errors.js';
import { parseJson } from '../json/exact-json.js';
import { closingQuote, scanJson } from '../lib/json-scan.js';
import { isExactNumber } from '../lib/exact-number.js';

/** A Singer message as the target reads it (the Singer spec's SCHEMA, RECORD, STATE, ACTIVATE_VERSION). */
export type SingerMessage =
  | { type: 'SCHEMA'; stream: string; properties: string[]; keyProperties: string[] }
  | { type: 'RECORD'; stream: string; record: Record<string, unknown>; version?: number }
  /** `value`: the state's JSON text as the tap wrote it, printed unchanged; undefined for an empty one (null, {}). */
  | { type: 'STATE'; value: string | undefined }
  | { type: 'ACTIVATE_VERSION'; stream: string; version: number }
  | { type: 'BATCH'; stream: string }
  | { type: 'other'; name: string };

/** A line of stdin that is no Singer message: exit 2, naming the line. */
function bad(line: number, message: string): UsageError {
  return new UsageError(
    `stdin line ${line}: ${message}`,
    'the target reads Singer messages, one JSON object a line (a tap piped into it, or meltano run)',
    'invalid_message',
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One line of stdin as a message (numbers exact); a blank line is undefined. */
export function readMessage(text: string, line: number): SingerMessage | undefined {
  if (text.trim() === '') return undefined;
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (err) {
    throw bad(line, `not JSON (${(err as Error).message.slice(0, 120)})`);
  }
  if (!isObject(doc) || typeof doc.type !== 'string') throw bad(line, 'not a Singer message (no "type")');
  const stream = () => {
    if (typeof doc.stream !== 'string' || doc.stream === '') throw bad(line, `${doc.type} without a "stream"`);
    return doc.stream;
  };
  switch (doc.type) {
    case 'SCHEMA':
      return schemaMessage(doc, stream(), line);
    case 'RECORD': {
      if (!isObject(doc.record)) throw bad(line, 'RECORD without a "record" object');
      return { type: 'RECORD', stream: stream(), record: doc.record, version: versionOf(doc.version, line, false) };
    }
    case 'STATE': {
      if (!Object.hasOwn(doc, 'value')) throw bad(line, 'STATE without a "value"');
      const empty = doc.value === null || (isObject(doc.value) && Object.keys(doc.value).length === 0);
      return { type: 'STATE', value: empty ? undefined : (valueText(text) ?? JSON.stringify(doc.value)) };
    }
    case 'ACTIVATE_VERSION':
      return { type: 'ACTIVATE_VERSION', stream: stream(), version: versionOf(doc.version, line, true)! };
    case 'BATCH':
      return { type: 'BATCH', stream: stream() };
    default:
      return { type: 'other', name: doc.type };
  }
}

function schemaMessage(doc: Record<string, unknown>, stream: string, line: number): SingerMessage {
  const schema = doc.schema;
  if (!isObject(schema) || !isObject(schema.properties))
    throw bad(line, `SCHEMA of ${JSON.stringify(stream)} without "schema.properties"`);
  const keys = doc.key_properties ?? [];
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string'))
    throw bad(line, `SCHEMA of ${JSON.stringify(stream)}: "key_properties" is not a list of names`);
  return { type: 'SCHEMA', stream, properties: Object.keys(schema.properties), keyProperties: keys as string[] };
}

function versionOf(value: unknown, line: number, required: boolean): number | undefined {
  if (value === undefined || value === null) {
    if (required) throw bad(line, 'ACTIVATE_VERSION without a "version"');
    return undefined;
  }
  const n = isExactNumber(value) ? Number(value.text) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(line, `"version" is not a number`);
  return n;
}

/** The text of the top-level member "value" of a message's line (the last one, as JSON.parse takes it). */
function valueText(text: string): string | undefined {
  let found: string | undefined;
  let i = text.indexOf('{') + 1;
  const blank = (at: number) => {
    while (at < text.length && ' \t\r\n'.includes(text[at])) at++;
    return at;
  };
  while (i > 0 && i < text.length) {
    i = blank(i);
    if (text[i] !== '"') break;
    const end = closingQuote(text, i + 1);
    if (end < 0) break;
    const key = JSON.parse(text.slice(i, end + 1)) as string;
    i = blank(end + 1);
    if (text[i] !== ':') break;
    const start = blank(i + 1);
    const stop = scanJson(text, start, text.length, { depth: 0, inString: false, separators: true });
    if (stop < 0) break;
    if (key === 'value') found = text.slice(start, stop).trim();
    if (text[stop] !== ',') break;
    i = stop + 1;
  }
  return found;
}
