// target-cnv (docs/target.md) fed a tap's messages, at the API's real limit of 200 requests/s:
// contacts into an account (one upsert each: how close to the limit the sends run, start-up and
// the snapshot's refresh included), and an audience's members (how full each batch add is, with a
// STATE every 5,000 records as cnv's tap writes them). Requests are counted by the emulator.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, timeCommand } from '../lib.mjs';
import { admin, BIN, startEmulatorProcess } from '../emulator.mjs';

const AUDIENCE = 'c1000000-0000-4000-8000-000000000003';
const TARGET = join(BIN, '..', 'target-cnv.js');
const LIMIT = 200;

export async function run({ quick }) {
  const dir = mkdtempSync(join(tmpdir(), 'cnv-bench-target-'));
  try {
    return [await contacts(dir, quick ? 1_000 : 6_000), await members(dir, quick ? 5_000 : 50_000)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The messages of one stream: its SCHEMA, a RECORD per row, a STATE every `every` records and at the end. */
function messages(stream, properties, key, rows, every) {
  const out = [JSON.stringify({ type: 'SCHEMA', stream, schema: { properties }, key_properties: [key] })];
  rows.forEach((record, i) => {
    out.push(JSON.stringify({ type: 'RECORD', stream, record }));
    if ((i + 1) % every === 0) out.push(JSON.stringify({ type: 'STATE', value: { [stream]: i + 1 } }));
  });
  if (rows.length % every !== 0) out.push(JSON.stringify({ type: 'STATE', value: { [stream]: rows.length } }));
  return out.join('\n') + '\n';
}

/**
 * target-cnv with `input` against `emu` (`streams` its config's), timed; the emulator's counts of
 * the run, and while it runs, every 100 ms, the count of `route`: when the first of them came,
 * and the last.
 */
async function timedTarget(dir, emu, name, input, streams, route) {
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ base_url: emu.url, api_key: emu.keys.full, streams }));
  await admin(emu, '/_emulator/stats/reset', { method: 'POST' });
  const env = { ...process.env, CNV_CONFIG_DIR: join(dir, name) };
  const started = Date.now();
  const seen = [];
  const poll = setInterval(() => {
    const at = Date.now();
    admin(emu, '/_emulator/stats').then(
      (s) => seen.push([at, s.byRoute[route] ?? 0]),
      () => {},
    );
  }, 100);
  const r = await timeCommand(process.execPath, [TARGET, '--config', config], { env, input, stdout: 'pipe' }).finally(
    () => clearInterval(poll),
  );
  const stats = await admin(emu, '/_emulator/stats');
  const sending = seen.filter(([, count]) => count > 0);
  const first = sending[0];
  const last = sending.find(([, count]) => count === sending[sending.length - 1][1]);
  const window =
    first && last && last[0] > first[0]
      ? { rate: (last[1] - first[1]) / ((last[0] - first[0]) / 1000), from: first[0] - started }
      : undefined;
  return {
    ...r,
    byRoute: stats.byRoute,
    rateLimited: stats.rateLimited,
    states: r.stdout.split('\n').filter(Boolean).length,
    window,
  };
}

async function contacts(dir, n) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: i,
    email: `target.${i}@example.com`,
    subscriptionStatus: 'SUBSCRIBED',
  }));
  const input = messages('people', { id: {}, email: {}, subscriptionStatus: {} }, 'id', rows, 500);
  const emu = await startEmulatorProcess(['--seed', 'none']);
  try {
    const route = 'POST /v2/contacts';
    const r = await timedTarget(dir, emu, 'contacts', input, { people: { kind: 'contacts' } }, route);
    const upserts = r.byRoute[route] ?? 0;
    const rate = r.window?.rate ?? 0;
    return {
      name: `\`target-cnv\`, ${n.toLocaleString('en')} new contacts (one upsert each): upserts per second while it sends`,
      baselineName: "the API's limit",
      metric: 'requests/s',
      subject: rate,
      baseline: LIMIT,
      ratio: rate / LIMIT,
      rounds: 1,
      targetText: '>= 0.95x, no 429',
      passes: rate / LIMIT >= 0.95 && upserts === n && r.rateLimited === 0,
      note:
        `${upserts} upserts; the first ${fmt((r.window?.from ?? 0) / 1000, 2)} s after the start (start-up, the snapshot's refresh, the columns), ` +
        `${fmt(r.ms / 1000, 1)} s in all: ${fmt(upserts / (r.ms / 1000))} requests/s over the whole run (cnv's limiter allows 195/s); ` +
        `${r.states} states printed; 429 answered: ${r.rateLimited}; peak RSS ${fmt(r.rssKiB / 1024)} MiB.`,
    };
  } finally {
    await emu.stop();
  }
}

async function members(dir, n) {
  const rows = Array.from({ length: n }, (_, i) => ({ id: i, email: `bulk.${i}@example.com` }));
  const input = messages('members', { id: {}, email: {} }, 'id', rows, 5_000);
  const emu = await startEmulatorProcess(['--seed-contacts', String(n)]);
  try {
    const route = 'POST /v2/audiences/:audienceId/contacts/batch';
    const streams = { members: { kind: 'audience', audience_id: AUDIENCE } };
    const r = await timedTarget(dir, emu, 'members', input, streams, route);
    const batches = r.byRoute[route] ?? 0;
    const perRequest = batches === 0 ? 0 : n / batches;
    const members = (await admin(emu, `/_emulator/state/audiences/${AUDIENCE}`)).memberIds.filter((id) =>
      id.startsWith('f0000000-'),
    ).length;
    return {
      name: `\`target-cnv\`, ${n.toLocaleString('en')} members into an audience: members per batch add`,
      baselineName: "the API's most (1,000)",
      metric: 'members/request',
      subject: perRequest,
      baseline: 1000,
      ratio: perRequest / 1000,
      rounds: 1,
      targetText: '1x, every member added',
      passes: perRequest === 1000 && members === n && r.rateLimited === 0,
      note:
        `${batches} batch adds in ${fmt(r.ms / 1000, 1)} s, ${r.states} states printed (a STATE every 5,000 records sends the open chunk: ` +
        `a multiple of 1,000 keeps them full); the audience holds ${members} of them; peak RSS ${fmt(r.rssKiB / 1024)} MiB.`,
    };
  } finally {
    await emu.stop();
  }
}
