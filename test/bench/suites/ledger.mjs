// The ledger jobs (docs/ledger.md): a recurring import's second run against its first, at the
// API's real limit of 200 requests/s. `audience sync` of a 100,000-member list, then the list
// with 1% churn (1,000 left, 1,000 joined); `records sync` of 50,000 records, then the file with
// 1% of them changed. Requests are counted by the emulator (its stats), rows by the run's summary.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, timeCommand } from '../lib.mjs';
import { admin, BIN, startEmulatorProcess } from '../emulator.mjs';

const AUDIENCE = 'c1000000-0000-4000-8000-000000000003';
const CUSTOM_OBJECT = 'c0000000-0000-4000-8000-000000000001';

export async function run({ quick }) {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-ledger-'));
  try {
    return [await audience(dir, quick ? 20_000 : 100_000), await records(dir, quick ? 10_000 : 50_000)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One run of `args` against `emu`: wall time, peak RSS, the emulator's request counts and the run's summary. */
async function timed(emu, args, config) {
  await admin(emu, '/_emulator/stats/reset', { method: 'POST' });
  const env = { ...process.env, CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full, CNV_CONFIG_DIR: config };
  const r = await timeCommand(process.execPath, [BIN, ...args, '--json', '--no-progress', '--quiet'], {
    env,
    stdout: 'pipe',
  });
  const stats = await admin(emu, '/_emulator/stats');
  return {
    ...r,
    requests: stats.total,
    byRoute: stats.byRoute,
    rateLimited: stats.rateLimited,
    summary: JSON.parse(r.stdout),
  };
}

const sentRows = (s) => s.ledger.added + s.ledger.updated + s.ledger.removed;

async function audience(dir, n) {
  const churn = n / 100;
  // The second list: every 100th member replaced by one who was not in the first (1% left, 1% joined, spread through the file).
  const list = (churned) => {
    const lines = ['email'];
    for (let i = 0; i < n; i++) lines.push(`bulk.${churned && i % 100 === 0 ? n + i / 100 : i}@example.com`);
    const path = join(dir, `members-${churned}.csv`);
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  const emu = await startEmulatorProcess(['--seed-contacts', String(n + churn)]);
  try {
    const config = join(dir, 'audience');
    const first = await timed(emu, ['audience', 'sync', AUDIENCE, '--file', list(false)], config);
    const second = await timed(emu, ['audience', 'sync', AUDIENCE, '--file', list(true)], config);
    const members = (await admin(emu, `/_emulator/state/audiences/${AUDIENCE}`)).memberIds.filter((id) =>
      id.startsWith('f0000000-'),
    );
    const exact =
      members.length === n && second.summary.ledger.removed === churn && second.summary.ledger.added === churn;
    const ratio = sentRows(second.summary) / sentRows(first.summary);
    return {
      name: `\`cnv audience sync\`, ${n.toLocaleString('en')} members, then 1% churn (${churn} left, ${churn} joined): rows sent by the second run`,
      baselineName: 'the rows sent by the first run',
      metric: 'rows',
      subject: sentRows(second.summary),
      baseline: sentRows(first.summary),
      ratio,
      rounds: 1,
      targetText: '<= 0.02x, the audience exactly the list',
      passes: ratio <= 0.02 && exact && second.rateLimited === 0,
      note:
        `requests: first ${first.requests} (${first.byRoute['POST /v2/audiences/:audienceId/contacts/batch']} batch adds of 1,000) in ${fmt(first.ms / 1000, 1)} s, ` +
        `second ${second.requests} (${second.byRoute['POST /v2/audiences/:audienceId/contacts/batch'] ?? 0} batch adds, ${second.byRoute['DELETE /v2/audiences/:audienceId/contacts'] ?? 0} removals: the API removes one contact a request) in ${fmt(second.ms / 1000, 1)} s, ` +
        `${fmt((100 * second.requests) / first.requests, 0)}% of the first's requests; ` +
        `peak RSS ${fmt(first.rssKiB / 1024)} and ${fmt(second.rssKiB / 1024)} MiB; 429 answered: ${first.rateLimited + second.rateLimited}; ` +
        `the audience ${exact ? 'holds exactly' : '**does not hold**'} the second list's ${n.toLocaleString('en')} members.`,
    };
  } finally {
    await emu.stop();
  }
}

async function records(dir, n) {
  const changed = n / 100;
  const file = (tag, every) => {
    const lines = ['clientDedupKey,planName,seats'];
    for (let i = 0; i < n; i++) lines.push(`bench-${i},${every && i % every === 0 ? `Pro ${tag}` : 'Pro'},${i % 50}`);
    const path = join(dir, `records-${tag}.csv`);
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  const emu = await startEmulatorProcess([]);
  try {
    const config = join(dir, 'records');
    const first = await timed(emu, ['records', 'sync', CUSTOM_OBJECT, '--file', file('a', 0)], config);
    const second = await timed(emu, ['records', 'sync', CUSTOM_OBJECT, '--file', file('b', n / changed)], config);
    const route = 'POST /v2/custom-objects/:customObjectId/records/batch';
    const [a, b] = [first.byRoute[route], second.byRoute[route] ?? 0];
    return {
      name: `\`cnv records sync\`, ${n.toLocaleString('en')} records, then ${changed} (1%) changed: record requests of the second run`,
      baselineName: 'the record requests of the first run',
      metric: 'requests',
      subject: b,
      baseline: a,
      ratio: b / a,
      rounds: 1,
      target: 0.02,
      passes: b / a <= 0.02 && second.summary.ledger.updated === changed,
      note:
        `first: ${a} batches of 200 (${first.requests} requests with the field list) in ${fmt(first.ms / 1000, 1)} s; ` +
        `second: ${b} batches (${second.summary.ledger.updated} records sent, ${second.summary.ledger.unchanged} unchanged; ${second.requests} requests with the field list) in ${fmt(second.ms / 1000, 1)} s; ` +
        `peak RSS ${fmt(first.rssKiB / 1024)} and ${fmt(second.rssKiB / 1024)} MiB.`,
    };
  } finally {
    await emu.stop();
  }
}
