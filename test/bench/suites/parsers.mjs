// Hand-written parsers and writers beside the library (or plain code) they replace, in the same
// run, so the choice to keep each one stays measured (issue 15):
// - export pages: src/lib/json-rows.ts (rows split out as the page streams) vs JSON.parse of the page;
// - CSV writer (src/io/csv-line.ts) vs csv-stringify's stream API with the same quoting;
// - CSV parser (src/io/csv-parser.ts) vs csv-parse's stream API with the line information cnv needs.
// Each figure is the median of alternating runs (after a warm-up), in µs per row: page parsing in
// fresh processes, the CSV rows in this process (their gaps are several-fold).
import { StringDecoder } from 'node:string_decoder';
import { parse as csvParse } from 'csv-parse';
import { stringify as csvStringify } from 'csv-stringify';
import { fileURLToPath } from 'node:url';
import { compare, fmt, median, timeCommand } from '../lib.mjs';

const PAGE_PARSE = fileURLToPath(new URL('../baselines/page-parse.mjs', import.meta.url));

const dist = (path) => import(new URL(`../../../dist/${path}`, import.meta.url).href);

export async function run({ rounds, quick }) {
  const results = [];
  results.push(...(await pageParse(rounds, quick)));
  results.push(await csvWriter(rounds, quick));
  results.push(await csvReader(rounds, quick));
  return results;
}

/** A contacts row as the export endpoint sends it (the same shape as baselines/page-parse.mjs). */
function contact(i) {
  const hex = (n, w) => n.toString(16).padStart(w, '0');
  return {
    id: `${hex(i, 8)}-1b2a-4c3d-9e8f-${hex(i * 7919, 12)}`,
    sfdcLeadId: i % 3 === 0 ? `00Q${hex(i, 15)}` : null,
    email: `person.${i}@example.com`,
    subscriptionStatus: i % 5 === 0 ? 'UNSUBSCRIBED' : 'SUBSCRIBED',
    createdAt: '2025-01-02T03:04:05.000Z',
    updatedAt: '2025-03-04T05:06:07.000Z',
    fields: { firstName: `First ${i}`, lastName: 'Zoë "Q" Müller', city: 'Saint-Denis, Réunion', score: i % 101 },
  };
}

/** A page's bytes cut as a socket would deliver them. */
function chunksOf(text, size = 64 * 1024) {
  const bytes = Buffer.from(text);
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function timed(rows, work) {
  return () => {
    const started = process.hrtime.bigint();
    const count = work();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (count !== rows) throw new Error(`expected ${rows} rows, got ${count}`);
    return { ms, usPerRow: (ms * 1000) / rows };
  };
}

/** Each run in a fresh process (baselines/page-parse.mjs): in one process, one way's heap taxed the other's. */
async function pageParse(rounds, quick) {
  const pages = quick ? 10 : 40;
  const run = (way, layout) => async () => {
    const r = await timeCommand(process.execPath, [PAGE_PARSE, way, layout, String(pages)], { stdout: 'pipe' });
    return { ...JSON.parse(r.stdout), rssKiB: r.rssKiB };
  };
  const out = [];
  for (const [layout, label] of [['compact', 'compact, as the emulator writes it'], ['spaced', 'spaced, as Python json.dumps writes it']]) {
    const r = await compare({ name: `page parse: splitter vs JSON.parse, ${label}`, baseline: run('parse', layout), subject: run('splitter', layout), rounds, warmup: 1, metric: 'usPerRow' });
    const rss = (side) => fmt(median(r.runs[side].map((x) => x.rssKiB)) / 1024, 1);
    out.push({
      ...r,
      baselineName: 'JSON.parse of the whole 5,000-row page (chunks gathered first)',
      targetText: '<= 0.90x to keep the splitter (issue 15)',
      passes: r.ratio <= 0.9,
      note: `${pages} pages of 5,000 contacts (${fmt(r.runs.subject[0].pageBytes / 2 ** 20, 1)} MiB each) in 64 KiB chunks, each run a fresh process; µs per row, parse only (no validation, no output); peak RSS ${rss('subject')} MiB (splitter) vs ${rss('baseline')} MiB (JSON.parse).`,
    });
  }
  return out;
}

function csvRowsOfCells(n) {
  return Array.from({ length: n }, (_, i) => {
    const c = contact(i);
    return [c.id, c.sfdcLeadId ?? '', '', '', c.email, c.subscriptionStatus, c.createdAt, c.updatedAt, c.fields.firstName, c.fields.lastName, c.fields.city, String(c.fields.score), i % 4 === 0 ? '{"fields.note":"a\\nb"}' : ''];
  });
}

async function csvWriter(rounds, quick) {
  const { csvFormatter, CSV_QUOTED_MATCH } = await dist('io/csv-line.js');
  const n = quick ? 50_000 : 200_000;
  const rows = csvRowsOfCells(n);
  const format = await csvFormatter('\r\n');
  // As the export writes: one call per row.
  const ours = timed(n, () => {
    let bytes = 0;
    for (const row of rows) bytes += format([row]).length;
    return bytes > 0 ? n : 0;
  });
  const theirs = async () => {
    const started = process.hrtime.bigint();
    const stringifier = csvStringify({ record_delimiter: 'windows', quoted_match: CSV_QUOTED_MATCH });
    let bytes = 0;
    stringifier.on('data', (chunk) => (bytes += chunk.length));
    const done = new Promise((resolve, reject) => {
      stringifier.on('end', resolve);
      stringifier.on('error', reject);
    });
    for (const row of rows) if (!stringifier.write(row)) await new Promise((r) => stringifier.once('drain', r));
    stringifier.end();
    await done;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (bytes === 0) throw new Error('csv-stringify wrote nothing');
    return { ms, usPerRow: (ms * 1000) / n };
  };
  const r = await compare({ name: `CSV writer: src/io/csv-line.ts vs csv-stringify (stream API), ${n.toLocaleString('en')} rows of 13 cells`, baseline: theirs, subject: ours, rounds, warmup: 1, metric: 'usPerRow' });
  return { ...r, baselineName: "csv-stringify's stream API, same quoting (quoted_match)", targetText: '< 1x to keep it', passes: r.ratio < 1, note: 'µs per row, text only (no file writes).' };
}

async function csvReader(rounds, quick) {
  const { CsvParser } = await dist('io/csv-parser.js');
  const { csvFormatter } = await dist('io/csv-line.js');
  const n = quick ? 50_000 : 200_000;
  const text = (await csvFormatter('\n'))([['email', 'subscriptionStatus', 'fields.city', 'fields.note'], ...csvRowsOfCells(n).map((r) => [r[4], r[5], r[10], r[12]])]);
  const chunks = chunksOf(text);
  const ours = timed(n + 1, () => {
    const parser = new CsvParser(',');
    const decoder = new StringDecoder('utf8');
    let count = 0;
    const out = [];
    for (const chunk of chunks) {
      out.length = 0;
      parser.push(decoder.write(chunk), out);
      count += out.length;
    }
    out.length = 0;
    parser.push(decoder.end(), out);
    parser.end(out);
    return count + out.length;
  });
  const theirs = async () => {
    const started = process.hrtime.bigint();
    const parser = csvParse({ info: true, bom: true, relax_column_count: true, skip_empty_lines: true });
    let count = 0;
    let lines = 0;
    parser.on('data', (r) => {
      count++;
      lines = r.info.lines;
    });
    const done = new Promise((resolve, reject) => {
      parser.on('end', resolve);
      parser.on('error', reject);
    });
    for (const chunk of chunks) if (!parser.write(chunk)) await new Promise((r) => parser.once('drain', r));
    parser.end();
    await done;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (count !== n + 1 || lines === 0) throw new Error(`csv-parse read ${count} records`);
    return { ms, usPerRow: (ms * 1000) / (n + 1) };
  };
  const r = await compare({ name: `CSV parser: src/io/csv-parser.ts vs csv-parse (stream API, info: true), ${n.toLocaleString('en')} rows`, baseline: theirs, subject: ours, rounds, warmup: 1, metric: 'usPerRow' });
  return { ...r, baselineName: "csv-parse's stream API with line information (info: true)", targetText: '< 1x to keep it', passes: r.ratio < 1, note: `µs per record, ${fmt(Buffer.byteLength(text) / 2 ** 20, 1)} MiB in 64 KiB chunks; records only (no rows, no validation).` };
}
