import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { useEmulator } from '../helpers/emulator.js';
import { jsonFile, lastState, messages, spawnTap, tap, tapConfig, type Message } from '../helpers/tap.js';

// kill -9 at random moments of a slowed run, then a rerun from the last STATE line the killed
// run wrote (what Meltano's state backend keeps): every row delivered at least once, and the
// rows per key as an upserting target would hold them equal to the account's.
const fx = useEmulator({ rateLimit: 0 });

const STREAM_KEYS: Record<string, string> = { contacts: 'id', custom_events: 'eventId', email_events: 'eventId' };

/** What an upserting target holds after these messages: per stream, the last record of each key. */
function upserted(into: Map<string, Map<string, string>>, msgs: Message[]): void {
  for (const m of msgs) {
    if (m.type !== 'RECORD') continue;
    const table = into.get(m.stream) ?? new Map<string, string>();
    into.set(m.stream, table);
    table.set(m.record[STREAM_KEYS[m.stream]], JSON.stringify(m.record));
  }
}

describe('kill -9 and a rerun from the last STATE', () => {
  it('5 rounds of kill -9 at random moments, then a run to the end: the tables equal one clean run, every row at least once', async () => {
    const config = tapConfig(fx, { page_size: 100 });
    const clean = await tap(['--config', config]);
    expect(clean.exitCode, clean.stderr).toBe(0);
    const reference = new Map<string, Map<string, string>>();
    upserted(reference, messages(clean.stdout));
    const info = await fx.admin('GET', '/_emulator/exports/info');
    expect(reference.get('contacts')!.size).toBe(info.contacts);

    // ~21 pages of contacts and dozens of event pages at 30 ms or more each: several seconds a run.
    await fx.faults({ latencyMs: 30 });
    const random = mulberry32(37);
    const tables = new Map<string, Map<string, string>>();
    let state: Message | undefined;
    let kills = 0;
    for (let round = 0; round < 5; round++) {
      const child = spawnTap(['--config', config, ...(state ? ['--state', jsonFile('state.json', state)] : [])]);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1500)));
      if (child.kill('SIGKILL')) kills++;
      const ended = await child;
      const msgs = messages(out);
      upserted(tables, msgs);
      state = lastState(msgs) ?? state;
      if (ended.exitCode === 0) break;
    }
    expect(kills).toBeGreaterThan(0);
    await fx.clearFaults();
    const last = await tap(['--config', config, ...(state ? ['--state', jsonFile('state.json', state)] : [])]);
    expect(last.exitCode, last.stderr).toBe(0);
    upserted(tables, messages(last.stdout));
    for (const stream of Object.keys(STREAM_KEYS)) {
      expect(tables.get(stream)?.size, stream).toBe(reference.get(stream)!.size);
      expect(new Map([...tables.get(stream)!].map(([k, v]) => [k, JSON.parse(v)])), stream).toEqual(new Map([...reference.get(stream)!].map(([k, v]) => [k, JSON.parse(v)])));
    }
    // And from its final STATE: nothing more.
    const after = await tap(['--config', config, '--state', jsonFile('state.json', lastState(messages(last.stdout)))]);
    expect(messages(after.stdout).filter((m) => m.type === 'RECORD')).toEqual([]);
  });
});
