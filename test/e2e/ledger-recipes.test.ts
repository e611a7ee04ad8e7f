import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AUDIENCES } from '../../src/emulator/seed/fixtures.js';
import { BIN } from '../helpers/cli.js';
import { emulatorFixture } from '../helpers/emulator.js';
import { blocks, script, type Block } from '../helpers/recipes.js';

// The ledger's recipes of README.md and docs/ledger.md, read from the markdown, run as written
// against the emulator on two nights: the files change in between (a member leaves the list and
// one joins, a record changes, orders are appended); each block exits 0 both nights, and the
// audience ends as the list says, its other members kept.

let fx: Awaited<ReturnType<typeof emulatorFixture>>;
let work: string;
const AUD = 'c1000000-0000-4000-8000-000000000003';
const bulkId = (i: number) => `f0000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const members = (ids: number[]) => `email\n${ids.map((i) => `bulk.${i}@example.com`).join('\n')}\n`;
const records = (seats: number) => `clientDedupKey,planName,seats\nrecipe-1,Pro,${seats}\nrecipe-2,Team,10\n`;
const orders = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => `o-${from + k},ordered,bulk.${from + k}@example.com\n`).join('');

beforeAll(async () => {
  fx = await emulatorFixture({ seedContacts: 40 });
  work = mkdtempSync(join(tmpdir(), 'cnv-ledger-recipes-'));
  for (const d of ['data', 'log', 'log/cnv']) mkdirSync(join(work, d));
  for (const dir of [work, join(work, 'data')]) {
    writeFileSync(join(dir, 'pro-plan.csv'), members([1, 2, 3, 4, 5]));
    writeFileSync(join(dir, 'subscriptions.csv'), records(3));
    writeFileSync(join(dir, 'orders.csv'), `order_id,event,email\n${orders(0, 5)}`);
  }
});
afterAll(() => fx.close());

function run(block: Block) {
  const body = script(block).replaceAll('/data/', `${work}/data/`).replaceAll('/var/log/', `${work}/log/`);
  return execa('bash', ['-c', `cnv() { node ${JSON.stringify(BIN)} "$@"; }\n${body}`], {
    cwd: work,
    reject: false,
    env: { ...process.env, ...fx.env, CI: 'true' },
    extendEnv: false,
  });
}

describe("the ledger's recipes (README.md, docs/ledger.md) work on two nights (binary)", () => {
  const all = [
    ...blocks('README.md', 'keeps a **ledger**', 'Exports resume where the last run stopped'),
    ...blocks('docs/ledger.md'),
  ];

  it('finds the blocks', () => {
    expect(all.filter((b) => b.doc === 'README.md')).toHaveLength(2);
    expect(all.some((b) => b.doc === 'docs/ledger.md' && b.lang === 'cron')).toBe(true);
    expect(FIXTURE_AUDIENCES.followUp.id).toBe(AUD);
  });

  it(
    'each block exits 0 on both nights; the audience is the list, its other members kept',
    { timeout: 60_000 },
    async () => {
      const before = ((await fx.admin('GET', `/_emulator/state/audiences/${AUD}`)) as { memberIds: string[] })
        .memberIds;
      for (const night of [1, 2]) {
        if (night === 2)
          for (const dir of [work, join(work, 'data')]) {
            writeFileSync(join(dir, 'pro-plan.csv'), members([2, 3, 4, 5, 6]));
            writeFileSync(join(dir, 'subscriptions.csv'), records(4));
            appendFileSync(join(dir, 'orders.csv'), orders(5, 8));
          }
        for (const block of all) {
          const res = await run(block);
          expect(res.exitCode, `night ${night}, ${block.doc}:\n${block.text}\n${res.stderr}`).toBe(0);
        }
      }
      const after = ((await fx.admin('GET', `/_emulator/state/audiences/${AUD}`)) as { memberIds: string[] }).memberIds;
      expect(after.sort()).toEqual([...before, ...[2, 3, 4, 5, 6].map(bulkId)].sort());
      const seats = (await fx.admin('GET', '/_emulator/state/records?clientDedupKey=recipe-1')) as Array<{
        fields: { seats: number };
      }>;
      expect(seats[0].fields.seats).toBe(4);
      expect((await fx.admin('GET', '/_emulator/state/events?event=ordered')) as unknown[]).toHaveLength(8);
    },
  );
});
