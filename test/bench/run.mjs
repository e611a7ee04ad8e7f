// `npm run bench`: runs the benchmark suites and writes docs/performance.md (figures from this
// run, then the hand-written analysis in test/bench/analysis.md).
// Every figure is the median of alternating runs of a baseline and the subject in this same run.
//   node test/bench/run.mjs [suite...] [--quick]   (a suite list or --quick: print only, write nothing)
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fmt } from './lib.mjs';

const SUITES = [
  'startup',
  'export',
  'export-pipelines',
  'batches',
  'sync',
  'ledger',
  'target',
  'tap',
  'meltano',
  'parsers',
];
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const quick = process.argv.includes('--quick');
const rounds = quick ? 3 : 7;

const results = [];
const started = Date.now();
const loadBefore = os.loadavg()[0];
for (const name of SUITES) {
  if (only.length && !only.includes(name)) continue;
  console.error(`bench: ${name} ...`);
  const suite = await import(`./suites/${name}.mjs`);
  for (const r of await suite.run({ rounds, quick })) {
    console.error(
      `  ${r.name}: ${fmt(r.subject)} vs ${fmt(r.baseline)} ${r.metric} -> ${fmt(r.ratio, 2)}x (target ${r.targetText ?? `<= ${r.target}x`})`,
    );
    results.push(r);
  }
}

// `passes: null`: a row shown for information, with no target of its own.
const pass = (r) => (r.passes === null ? '—' : (r.passes ?? r.ratio <= r.target) ? 'met' : '**not met**');
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  '# Performance',
  '',
  'Written by `npm run bench` (test/bench). Each figure is the median of alternating runs of a',
  'baseline and the subject in the same run; absolute times are shown for context, only ratios are',
  'compared with targets. The machine is shared and noisy: expect a few percent of variation between',
  'runs. Nothing in `npm test` is timed.',
  '',
  `Machine: ${os.cpus().length} x ${cpu}, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, ${os.type()} ${os.release()} (${os.arch()}), Node.js ${process.version}.`,
  `Run: ${new Date().toISOString()}, ${rounds} rounds for start-up and batches, fewer for the long exports (see each row)${quick ? ' (--quick)' : ''}, ` +
    `${fmt((Date.now() - started) / 1000, 0)} s in all; load average ${fmt(loadBefore, 2)} at the start, ${fmt(os.loadavg()[0], 2)} at the end.`,
  '',
  '| what | baseline (same run) | cnv | baseline | ratio | target | |',
  '|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.name} | ${r.baselineName} | ${fmt(r.subject)} ${r.metric} | ${fmt(r.baseline)} ${r.metric} | ${fmt(r.ratio, 2)}x | ${r.targetText ?? `<= ${r.target}x`} | ${pass(r)} |`,
  ),
  '',
];
const notes = results
  .filter((r) => r.note)
  .map((r) => `- ${r.name} (${r.rounds} round${r.rounds === 1 ? '' : 's'}): ${r.note}`);
if (notes.length) lines.push('## Notes on this run', '', ...notes, '');
const analysis = readFileSync(new URL('./analysis.md', import.meta.url), 'utf8').trim();
const doc = [...lines, analysis, ''].join('\n');
if (!only.length && !quick) writeFileSync(new URL('../../docs/performance.md', import.meta.url), doc);
console.log(lines.join('\n'));
