import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';
import { duplicates, ndjsonRows } from '../helpers/exports.js';
import { blocks, script, type Block } from '../helpers/recipes.js';

// Every command block of README.md's export part and of docs/exports.md, read from the markdown
// (so they cannot drift), run in the documents' order, twice (the second pass is cron's next
// hour): each must exit 0. The emulator, its key and a temporary directory stand in for the
// real service and paths; `load-into-*`, `loader` and `mail` get stand-ins.
const SINCE = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z';
let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let work: string;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fx.emulator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
beforeAll(async () => {
  // A small store keeps the two passes fast: a few contacts, events and email events.
  fx = await emulatorFixture({ rateLimit: 0, seed: 'none' });
  const key = { 'x-api-key': fx.emulator.keys.full };
  for (let i = 0; i < 12; i++) {
    const email = `recipe.${i}@example.com`;
    await post('/v2/contacts', { email, subscriptionStatus: 'SUBSCRIBED' }, key);
    await post(
      '/v2/events',
      {
        event: 'recipe_step',
        email,
        clientEventId: `recipe-${i}`,
        occurredAt: new Date(Date.now() - (i + 1) * 3_600_000).toISOString(),
      },
      key,
    );
    await post('/_emulator/email-events', { eventType: ['EMAIL_SEND', 'EMAIL_OPEN', 'EMAIL_CLICK'][i % 3], email });
  }
  work = mkdtempSync(join(tmpdir(), 'cnv-recipes-'));
  for (const d of ['data', 'data/in', 'log', 'loaded']) mkdirSync(join(work, d));
});
afterAll(() => fx.close());

function run(block: Block) {
  const prelude = [
    `cnv() { node ${JSON.stringify(BIN)} "$@"; }`,
    'loader() { cat > "$WORK/loaded/$(date +%s%N).ndjson"; }',
    'load-into-warehouse() { loader; }',
    'load-into-crm() { loader; }',
    'mail() { cat > /dev/null; }',
  ].join('\n');
  const body = script(block)
    .replaceAll('/data/', `${work}/data/`)
    .replaceAll('/var/log/', `${work}/log/`)
    .replaceAll('/etc/cnv', fx.configDir)
    .replaceAll('sk_live_...', fx.emulator.keys.full)
    // The windows start two days ago: the emulator walks a window in segments, a page each.
    .replace(/20\d\d-\d\d-\d\dT00:00:00Z/g, SINCE);
  return execa('bash', ['-c', `${prelude}\n${body}`], {
    cwd: work,
    reject: false,
    env: { ...process.env, ...fx.env, WORK: work, CI: 'true' },
    extendEnv: false,
  });
}

describe('the README and docs/exports.md recipes work, in their order (binary)', () => {
  const all = [
    ...blocks('README.md', 'Exports resume where the last run stopped', '\n## '),
    ...blocks('docs/exports.md'),
  ];

  it('finds the blocks: the README export part and every docs/exports.md command block', () => {
    expect(all.filter((b) => b.doc === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(all.filter((b) => b.doc === 'docs/exports.md').length).toBeGreaterThanOrEqual(3);
    expect(all.some((b) => b.text.includes('--defer-commit') && b.text.includes('state commit'))).toBe(true);
  });

  it(
    "each block exits 0; the README's and the cron lines again (the next cron hour)",
    { timeout: 60_000 },
    async () => {
      for (const pass of [1, 2]) {
        for (const block of all.filter((b) => pass === 1 || b.doc === 'README.md' || b.lang === 'cron')) {
          const res = await run(block);
          expect(res.exitCode, `pass ${pass}, ${block.doc}:\n${block.text}\n${res.stderr}`).toBe(0);
        }
      }
      // Every file holds each row once; the pipelines' loader got every contact.
      for (const name of ['contacts.ndjson', 'data/contacts.ndjson', 'data/events.ndjson']) {
        const rows = ndjsonRows(join(work, name));
        expect(rows.length, name).toBeGreaterThan(0);
        expect(duplicates(rows.map((r) => JSON.stringify(r))), name).toEqual([]);
      }
      const loaded = readdirSync(join(work, 'loaded')).flatMap((f) => ndjsonRows(join(work, 'loaded', f)));
      expect(new Set(loaded.map((r) => r.id)).size).toBe(fx.emulator.store.business('acme').contacts.size);
    },
  );
});
