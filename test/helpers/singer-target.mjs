// A Singer target for tests, run as a process (test/helpers/singer-pipeline.ts runs it as Meltano
// runs a loader): `node singer-target.mjs --config FILE`, the config `{ "destination": DIR }`.
// It reads the Singer messages (github.com/singer-io/getting-started, docs/SPEC.md; the type read
// without regard to case, other types ignored) on stdin and keeps, per stream, its rows by key in
// DIR/<stream>.ndjson, one `{"version":V,"record":{...}}` a line, numbers with every digit:
// - SCHEMA: the stream's key (`key_properties`; none: every record a row of its own); the rows a
//   run before stored are read again.
// - RECORD: the row of its key replaced (upsert), carrying the RECORD's `version` (when it has one).
// - ACTIVATE_VERSION: a hard delete, as the Singer SDK's SQL targets with hard_delete do: the rows
//   of an older version are removed (a row with no version stays).
// - STATE: the streams changed since the last STATE are written (each file whole, written beside
//   it then renamed), then the STATE's value printed on stdout: a state is never ahead of the
//   rows before it, as targets promise. The same at the end of stdin (nothing printed).
// At the end, one line on stderr: `singer-target: {"records":{...},"activated":{...},"states":N}`.
// A message it cannot use (not JSON, a RECORD before its stream's SCHEMA): exit 1, the line number.
// A last line with no line end is what a tap killed mid-write leaves: ignored, with a note.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'lossless-json';
import { parseExact } from '../../scripts/interop/compare.mjs';

const fail = (message) => {
  process.stderr.write(`singer-target: ${message}\n`);
  process.exit(1);
};

const at = process.argv.indexOf('--config');
if (at < 0 || !process.argv[at + 1]) fail('usage: singer-target.mjs --config FILE');
const { destination } = JSON.parse(readFileSync(process.argv[at + 1], 'utf8'));
if (typeof destination !== 'string') fail('the config has no "destination" (the folder of the store)');
mkdirSync(destination, { recursive: true });

/** The streams seen in this run: name → { keyProperties, rows: Map<key, { version, text }>, dirty }. */
const tables = new Map();
const counts = { records: {}, activated: {}, states: 0 };
let unkeyed = 0;

const fileOf = (stream) => join(destination, `${encodeURIComponent(stream)}.ndjson`);
const keyOf = (table, record) =>
  table.keyProperties.length ? stringify(table.keyProperties.map((k) => record[k] ?? null)) : `#${unkeyed++}`;

/** The stream's table, its stored rows read once (at its first SCHEMA of the run). */
function open(stream, keyProperties) {
  const table = { keyProperties, rows: new Map(), dirty: false };
  tables.set(stream, table);
  if (!existsSync(fileOf(stream))) return;
  for (const line of readFileSync(fileOf(stream), 'utf8').split('\n')) {
    if (!line) continue;
    const row = parseExact(line);
    const version = row.version === undefined ? undefined : Number(row.version);
    table.rows.set(keyOf(table, row.record), { version, text: stringify(row.record) });
  }
}

/** Writes every changed table whole: beside its file, then renamed over it. */
function flush() {
  for (const [stream, table] of tables) {
    if (!table.dirty) continue;
    const lines = [...table.rows.values()].map(
      (r) => `{${r.version === undefined ? '' : `"version":${r.version},`}"record":${r.text}}\n`,
    );
    const tmp = `${fileOf(stream)}.${process.pid}.tmp`;
    writeFileSync(tmp, lines.join(''));
    renameSync(tmp, fileOf(stream));
    table.dirty = false;
  }
}

const tableOf = (msg, n) =>
  tables.get(msg.stream) ?? fail(`line ${n}: ${msg.type} of stream ${JSON.stringify(msg.stream)} before its SCHEMA`);

/** The complete lines of stdin (a cut last line is noted on stderr, not given). */
async function* lines() {
  let rest = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    yield* parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  }
  if (rest.trim()) process.stderr.write(`singer-target: the last line has no line end (a writer cut short): ignored\n`);
}

let n = 0;
for await (const line of lines()) {
  n++;
  if (!line.trim()) continue;
  let msg;
  try {
    msg = parseExact(line);
  } catch {
    fail(`line ${n}: not JSON`);
  }
  const type = String(msg.type).toUpperCase();
  if (type === 'SCHEMA') {
    if (!tables.has(msg.stream)) open(msg.stream, msg.key_properties ?? []);
    tables.get(msg.stream).keyProperties = msg.key_properties ?? [];
  } else if (type === 'RECORD') {
    const table = tableOf(msg, n);
    const version = msg.version === undefined ? undefined : Number(msg.version);
    table.rows.set(keyOf(table, msg.record), { version, text: stringify(msg.record) });
    table.dirty = true;
    counts.records[msg.stream] = (counts.records[msg.stream] ?? 0) + 1;
  } else if (type === 'ACTIVATE_VERSION') {
    const table = tableOf(msg, n);
    const version = Number(msg.version);
    for (const [key, row] of table.rows) if (row.version !== undefined && row.version < version) table.rows.delete(key);
    table.dirty = true;
    counts.activated[msg.stream] = (counts.activated[msg.stream] ?? 0) + 1;
  } else if (type === 'STATE') {
    flush();
    process.stdout.write(`${stringify(msg.value)}\n`);
    counts.states++;
  }
}
flush();
process.stderr.write(`singer-target: ${JSON.stringify(counts)}\n`);
