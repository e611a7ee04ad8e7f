import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFixture, type EmulatorFixture } from '../helpers/emulator.js';
import { blocks, script, type Block } from '../helpers/recipes.js';
import { TAP_BIN } from '../helpers/tap.js';
import {
  contactDifferences,
  createBulkFields,
  eventLines,
  repeatedEvents,
  TARGET_BIN,
} from '../helpers/target-accounts.js';

// The target's recipes of README.md ("Back into the account") and docs/target.md, read from the
// markdown and run in order against two emulators: production.json names one account,
// sandbox.json another (the files the README's block says it needs). A stand-in `meltano` logs
// what it is asked and runs `meltano run tap-cnv target-cnv` as the pipe it stands for; there is
// no tap-postgres here. Each command exits 0, and the sandbox ends a copy of production.
const CONTACTS = 40;
const EVENTS = 10;
let source: EmulatorFixture;
let copy: EmulatorFixture;
let work: string;

beforeAll(async () => {
  [source, copy] = await Promise.all([
    emulatorFixture({ seed: 'none', seedContacts: CONTACTS, seedEvents: EVENTS, rateLimit: 0 }),
    emulatorFixture({ seed: 'none', rateLimit: 0 }),
  ]);
  await Promise.all([createBulkFields(source), createBulkFields(copy)]);
  work = mkdtempSync(join(tmpdir(), 'cnv-target-recipes-'));
  const config = (fx: EmulatorFixture) => JSON.stringify({ api_key: fx.emulator.keys.full, base_url: fx.emulator.url });
  writeFileSync(join(work, 'production.json'), config(source), { mode: 0o600 });
  writeFileSync(join(work, 'sandbox.json'), config(copy), { mode: 0o600 });
});
afterAll(async () => {
  await source?.close();
  await copy?.close();
});

const MELTANO = [
  'meltano() {',
  '  echo "meltano $*" >> "$WORK/meltano.log"',
  '  if [ "$*" = "run tap-cnv target-cnv" ]; then',
  '    tap-cnv --config production.json | target-cnv --config sandbox.json >> "$WORK/meltano-states"',
  '  fi',
  '}',
].join('\n');

function run(block: Block) {
  const prelude = [
    'set -o pipefail',
    `tap-cnv() { node ${JSON.stringify(TAP_BIN)} "$@"; }`,
    `target-cnv() { node ${JSON.stringify(TARGET_BIN)} "$@"; }`,
    MELTANO,
  ].join('\n');
  return execa('bash', ['-c', `${prelude}\n${script(block)}`], {
    cwd: work,
    reject: false,
    env: { PATH: process.env.PATH, HOME: work, WORK: work, CNV_CONFIG_DIR: join(work, 'cnv') },
    extendEnv: false,
  });
}

/** The lines of a file the target's stdout went to: each a Singer state of cnv's tap. */
function states(file: string): { bookmarks: Record<string, unknown> }[] {
  const lines = readFileSync(join(work, file), 'utf8').split('\n').filter(Boolean);
  return lines.map((l) => JSON.parse(l) as { bookmarks: Record<string, unknown> });
}

describe("the target's recipes (README.md, docs/target.md) copy production into a sandbox (binary)", () => {
  const all = [...blocks('README.md', '## Back into the account', '\n## '), ...blocks('docs/target.md')];

  it('finds the blocks: the copy by hand and under Meltano, --about', () => {
    expect(all.filter((b) => b.doc === 'README.md')).toHaveLength(1);
    expect(all.some((b) => b.text.includes('target-cnv --about --format markdown'))).toBe(true);
    expect(all.some((b) => b.text.includes('meltano run tap-cnv target-cnv'))).toBe(true);
  });

  it('each block exits 0; the sandbox ends equal to production, each event once', { timeout: 120_000 }, async () => {
    for (const block of all) {
      const res = await run(block);
      expect(res.exitCode, `${block.doc}: ${block.text}\n${res.stderr}`).toBe(0);
      expect(res.stderr).not.toContain(source.emulator.keys.full);
      expect(res.stderr).not.toContain(copy.emulator.keys.full);
    }
    expect(contactDifferences(source, copy, CONTACTS)).toEqual([]);
    expect(eventLines(copy)).toEqual(eventLines(source, EVENTS));
    expect(repeatedEvents(copy)).toEqual([]);
    // stdout held only the tap's states, each with its bookmarks.
    for (const file of ['state.json', 'meltano-states']) {
      expect(states(file).length, file).toBeGreaterThan(0);
      for (const s of states(file)) expect(Object.keys(s.bookmarks), file).toContain('contacts');
    }
    expect(readFileSync(join(work, 'meltano.log'), 'utf8')).toBe(
      'meltano run tap-postgres target-cnv\nmeltano run tap-cnv target-cnv\n',
    );
  });
});
