// Hand-written parsers and writers beside the library (or plain code) they replace, in the same
// run, so the choice to keep each one stays measured (issues 15 and 23):
// - export pages: src/lib/json-rows.ts (rows split out as the page streams) vs JSON.parse of the
//   page, parse only and in a whole export (baselines/dist-cnv.mjs --whole-pages: the page read
//   whole, parsed once, each NDJSON line made by stringifyJson);
// - CSV writer (src/output/csv-line.ts) vs csv-stringify, its sync API and its stream API, same quoting;
// - CSV parser (src/input/csv-parser.ts) vs csv-parse, sync and stream, with the line information
//   cnv needs, on input with quoted line breaks, LF and CR-only line ends.
// Each figure is the median of alternating runs (after a warm-up), in µs per row: page parsing
// and whole exports in fresh processes, the CSV rows in this process (their gaps are several-fold).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parse as csvParse } from 'csv-parse';
import { parse as csvParseSync } from 'csv-parse/sync';
import { stringify as csvStringify } from 'csv-stringify';
import { stringify as csvStringifySync } from 'csv-stringify/sync';
import { fileURLToPath } from 'node:url';
import { compare, fmt, median, timeCommand } from '../lib.mjs';
import { startEmulatorProcess } from '../emulator.mjs';

const PAGE_PARSE = fileURLToPath(new URL('../baselines/page-parse.mjs', import.meta.url));
const DIST_CNV = fileURLToPath(new URL('../baselines/dist-cnv.mjs', import.meta.url));

const dist = (path) => import(new URL(`../../../dist/${path}`, import.meta.url).href);

export async function run({ rounds, quick }) {
  const results = [];
  results.push(...(await wholeExport(rounds, quick)));
  results.push(...(await pageParse(rounds, quick)));
  results.push(...(await csvWriter(rounds, quick)));
  results.push(...(await csvReader(rounds, quick)));
  return results;
}

/**
 * A whole NDJSON export with the splitter (cnv as it is) against the page read whole, both run by
 * baselines/dist-cnv.mjs (the page reader is all that differs).
 */
async function wholeExport(rounds, quick) {
  const bulk = quick ? 200_000 : 1_000_000;
  const n = Math.min(rounds, quick ? 2 : 4);
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-whole-'));
  const emu = await startEmulatorProcess(['--seed-contacts', String(bulk), '--rate-limit', '0']);
  try {
    const env = {
      ...process.env,
      CNV_BASE_URL: emu.url,
      CNV_API_KEY: emu.keys.full,
      CNV_CONFIG_DIR: join(dir, 'config'),
      NO_COLOR: '1',
    };
    const cnv =
      (file, ...how) =>
      () =>
        timeCommand(
          process.execPath,
          [
            DIST_CNV,
            ...how,
            'export',
            'contacts',
            '--format',
            'ndjson',
            '--out',
            join(dir, file),
            '--full',
            '--state-key',
            file,
            '--no-progress',
          ],
          { env },
        );
    const r = await compare({
      name: `page splitter in a whole export: \`cnv export contacts --format ndjson --out FILE\`, ${bulk.toLocaleString('en')} rows`,
      baseline: cnv('whole.ndjson', '--whole-pages'),
      subject: cnv('splitter.ndjson'),
      rounds: n,
      warmup: 1,
    });
    const splitterText = readFileSync(join(dir, 'splitter.ndjson'), 'utf8');
    const wholeText = readFileSync(join(dir, 'whole.ndjson'), 'utf8');
    // The emulator's rows hold nothing JSON.stringify would write otherwise: the same bytes here.
    if (splitterText !== wholeText) throw new Error('the two ways wrote different files');
    const rss = (side) => median(r.runs[side].map((x) => x.rssKiB)) / 1024;
    const label = `${bulk.toLocaleString('en')} rows, pages of 5,000, each way in fresh processes, alternated`;
    return [
      {
        ...r,
        baselineName:
          'the same export with each page read whole, one JSON parse, stringifyJson per row (test/bench/baselines/dist-cnv.mjs --whole-pages)',
        targetText: '<= 0.90x to keep it for speed; it stays for the exact bytes either way',
        passes: r.ratio <= 0.9,
        note: `${label}; the same ${fmt(splitterText.length / 2 ** 20, 0)} MiB from both. A row the API sends with a number past 2^53, an escape or an integer-like member name is written as sent only by the splitter (test/commands/export/runner.test.ts, "NDJSON rows are the bytes the API sent").`,
      },
      {
        name: `page splitter in a whole export: peak RSS, ${bulk.toLocaleString('en')} rows`,
        baselineName: 'the page read whole (test/bench/baselines/dist-cnv.mjs --whole-pages), the same runs',
        metric: 'MiB',
        subject: rss('subject'),
        baseline: rss('baseline'),
        ratio: rss('subject') / rss('baseline'),
        rounds: n,
        // Parse-only, a page is never held parsed (the rows below); in a whole export the
        // output's blocks and the heap hold set the peak either way: the splitter must only cost
        // no more, within the few percent peak RSS moves between runs (the heap hold's row: 1.05x).
        targetText: '<= 1.05x (no more memory)',
        passes: rss('subject') / rss('baseline') <= 1.05,
        note: `peak RSS per run (MiB), splitter: ${r.runs.subject.map((x) => fmt(x.rssKiB / 1024, 0)).join(', ')}; whole pages: ${r.runs.baseline.map((x) => fmt(x.rssKiB / 1024, 0)).join(', ')}.`,
      },
    ];
  } finally {
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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

/** Writes `items` into a library's stream, minding backpressure, and waits for its end: the ms it took. */
async function throughStream(stream, items) {
  const started = process.hrtime.bigint();
  const done = new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  for (const item of items) if (!stream.write(item)) await new Promise((r) => stream.once('drain', r));
  stream.end();
  await done;
  return Number(process.hrtime.bigint() - started) / 1e6;
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
  for (const [layout, label] of [
    ['compact', 'compact, as the emulator writes it'],
    ['spaced', 'spaced, as Python json.dumps writes it'],
  ]) {
    const r = await compare({
      name: `page parse: splitter vs JSON.parse, ${label}`,
      baseline: run('parse', layout),
      subject: run('splitter', layout),
      rounds,
      warmup: 1,
      metric: 'usPerRow',
    });
    const rss = (side) => fmt(median(r.runs[side].map((x) => x.rssKiB)) / 1024, 1);
    out.push({
      ...r,
      baselineName: 'JSON.parse of the whole 5,000-row page (chunks gathered first)',
      // Issue 15's rule on parse alone; since issue 23 the whole-export rows above decide.
      targetText: 'none: the whole-export rows decide (issue 23)',
      passes: null,
      note: `${pages} pages of 5,000 contacts (${fmt(r.runs.subject[0].pageBytes / 2 ** 20, 1)} MiB each) in 64 KiB chunks, each run a fresh process; µs per row, parse only (no validation, no output); peak RSS ${rss('subject')} MiB (splitter) vs ${rss('baseline')} MiB (JSON.parse).`,
    });
  }
  return out;
}

function csvRowsOfCells(n) {
  return Array.from({ length: n }, (_, i) => {
    const c = contact(i);
    return [
      c.id,
      c.sfdcLeadId ?? '',
      '',
      '',
      c.email,
      c.subscriptionStatus,
      c.createdAt,
      c.updatedAt,
      c.fields.firstName,
      c.fields.lastName,
      c.fields.city,
      String(c.fields.score),
      i % 4 === 0 ? '{"fields.note":"a\\nb"}' : '',
    ];
  });
}

async function csvWriter(rounds, quick) {
  const { csvFormatter, CSV_QUOTED_MATCH } = await dist('output/csv-line.js');
  const n = quick ? 50_000 : 200_000;
  const rows = csvRowsOfCells(n);
  const format = await csvFormatter('\r\n');
  // As the export writes: one call per row.
  const ours = timed(n, () => {
    let bytes = 0;
    for (const row of rows) bytes += format([row]).length;
    return bytes > 0 ? n : 0;
  });
  const options = { record_delimiter: 'windows', quoted_match: CSV_QUOTED_MATCH };
  const sync = timed(n, () => (csvStringifySync(rows, options).length > 0 ? n : 0));
  const stream = async () => {
    const stringifier = csvStringify(options);
    let bytes = 0;
    stringifier.on('data', (chunk) => (bytes += chunk.length));
    const ms = await throughStream(stringifier, rows);
    if (bytes === 0) throw new Error('csv-stringify wrote nothing');
    return { ms, usPerRow: (ms * 1000) / n };
  };
  // The same text, or the comparison means nothing.
  if (rows.map((row) => format([row])).join('') !== csvStringifySync(rows, options))
    throw new Error('csv-line.ts and csv-stringify wrote different text');
  const label = `${n.toLocaleString('en')} rows of 13 cells`;
  const note = 'µs per row, text only (no file writes); the same text from both (checked).';
  const viaSync = await compare({
    name: `CSV writer: src/output/csv-line.ts vs csv-stringify (sync API), ${label}`,
    baseline: sync,
    subject: ours,
    rounds,
    warmup: 1,
    metric: 'usPerRow',
  });
  const viaStream = await compare({
    name: `CSV writer: src/output/csv-line.ts vs csv-stringify (stream API), ${label}`,
    baseline: stream,
    subject: ours,
    rounds,
    warmup: 1,
    metric: 'usPerRow',
  });
  return [
    {
      ...viaSync,
      baselineName: "csv-stringify/sync's `stringify(rows)`, same quoting (quoted_match)",
      targetText: '< 1x to keep it',
      passes: viaSync.ratio < 1,
      note,
    },
    {
      ...viaStream,
      baselineName: "csv-stringify's stream API, same quoting (quoted_match)",
      targetText: '< 1x to keep it',
      passes: viaStream.ratio < 1,
      note,
    },
  ];
}

/** An input file's text: a header, then rows with commas, quotes and line breaks inside quoted values. */
async function inputText(n, lineEnd) {
  const { csvFormatter } = await dist('output/csv-line.js');
  const rows = csvRowsOfCells(n).map((r, i) => [
    r[4],
    r[5],
    r[10],
    i % 3 === 0 ? `line one${lineEnd}line "two"` : r[12],
  ]);
  return (await csvFormatter(lineEnd))([['email', 'subscriptionStatus', 'fields.city', 'fields.note'], ...rows]);
}

async function csvReader(rounds, quick) {
  const { CsvParser } = await dist('input/csv-parser.js');
  const n = quick ? 50_000 : 200_000;
  const options = { info: true, bom: true, relax_column_count: true, skip_empty_lines: true };
  const out = [];
  for (const [lineEnd, ends] of [
    ['\n', 'LF line ends'],
    ['\r', 'CR-only line ends (old Mac)'],
  ]) {
    const text = await inputText(n, lineEnd);
    const chunks = chunksOf(text);
    const ours = timed(n + 1, () => {
      const parser = new CsvParser(',');
      const decoder = new StringDecoder('utf8');
      let count = 0;
      const got = [];
      for (const chunk of chunks) {
        got.length = 0;
        parser.push(decoder.write(chunk), got);
        count += got.length;
      }
      got.length = 0;
      parser.push(decoder.end(), got);
      parser.end(got);
      return count + got.length;
    });
    // Whole text in, every record with its line information out (what `info: true` costs is what cnv needs).
    const sync = timed(n + 1, () => csvParseSync(text, options).length);
    const stream = async () => {
      const parser = csvParse(options);
      let count = 0;
      let lines = 0;
      parser.on('data', (r) => {
        count++;
        lines = r.info.lines;
      });
      const ms = await throughStream(parser, chunks);
      if (count !== n + 1 || lines === 0) throw new Error(`csv-parse read ${count} records`);
      return { ms, usPerRow: (ms * 1000) / (n + 1) };
    };
    // The same records, or the comparison means nothing.
    const theirs = csvParseSync(text, options).map((r) => r.record);
    const parser = new CsvParser(',');
    const mine = parser.push(text);
    parser.end(mine);
    if (JSON.stringify(mine.map((r) => r.fields)) !== JSON.stringify(theirs))
      throw new Error(`csv-parser.ts and csv-parse read different records (${ends})`);
    const note = `µs per record, ${fmt(Buffer.byteLength(text) / 2 ** 20, 1)} MiB in 64 KiB chunks (csv-parse/sync: the whole text at once), ${ends}, a third of the rows with a line break and quotes inside a quoted value; records only (no rows, no validation); the same records from both (checked).`;
    const viaSync = await compare({
      name: `CSV parser: src/input/csv-parser.ts vs csv-parse (sync API, info: true), ${n.toLocaleString('en')} rows, ${ends}`,
      baseline: sync,
      subject: ours,
      rounds,
      warmup: 1,
      metric: 'usPerRow',
    });
    out.push({
      ...viaSync,
      baselineName: "csv-parse/sync's `parse(text)` with line information (info: true)",
      targetText: '< 1x to keep it',
      passes: viaSync.ratio < 1,
      note,
    });
    if (lineEnd === '\n') {
      const viaStream = await compare({
        name: `CSV parser: src/input/csv-parser.ts vs csv-parse (stream API, info: true), ${n.toLocaleString('en')} rows, ${ends}`,
        baseline: stream,
        subject: ours,
        rounds,
        warmup: 1,
        metric: 'usPerRow',
      });
      out.push({
        ...viaStream,
        baselineName: "csv-parse's stream API with line information (info: true)",
        targetText: '< 1x to keep it',
        passes: viaStream.ratio < 1,
        note,
      });
    }
  }
  return out;
}
