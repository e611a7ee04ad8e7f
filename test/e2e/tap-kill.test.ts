import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/seed/prng.js';
import { useEmulator } from '../helpers/emulator.js';
import { jsonFile, lastState, messages, spawnTap, tap, tapConfig, type Message } from '../helpers/tap.js';

// kill -9 at random moments of a slowed run, then a rerun from the last STATE line the killed
// run wrote (what Meltano's state backend keeps): every row delivered at least once, and the
// rows per key as an upserting target would hold them equal to the account's.
const fx = useEmulator({ rateLimit: 0 });

const STREAM_KEYS: Record<string, string> = {
  contacts: 'id',
  custom_events: 'eventId',
  email_events: 'eventId',
  fields: 'key',
  campaigns: 'id',
};

/**
 * What an upserting target with hard_delete holds after these messages: per stream, the last
 * record of each key (and the table version it came with); ACTIVATE_VERSION drops the rows of
 * older versions, as the Singer SDK's SQL targets do.
 */
function upserted(into: Map<string, Map<string, { record: string; version?: number }>>, msgs: Message[]): void {
  for (const m of msgs) {
    const table = into.get(m.stream) ?? new Map<string, { record: string; version?: number }>();
    into.set(m.stream, table);
    if (m.type === 'RECORD')
      table.set(m.record[STREAM_KEYS[m.stream]], { record: JSON.stringify(m.record), version: m.version });
    if (m.type === 'ACTIVATE_VERSION')
      for (const [key, row] of table) if (row.version !== undefined && row.version < m.version) table.delete(key);
  }
}

/** A table's records by key. */
const rowsOf = (table: Map<string, { record: string }> | undefined) =>
  new Map([...(table ?? [])].map(([k, v]) => [k, JSON.parse(v.record)]));

describe('kill -9 and a rerun from the last STATE', () => {
  it('5 rounds of kill -9 at random moments, then a run to the end: the tables equal one clean run, every row at least once', async () => {
    const config = tapConfig(fx, { page_size: 100 });
    const clean = await tap(['--config', config]);
    expect(clean.exitCode, clean.stderr).toBe(0);
    const reference = new Map<string, Map<string, { record: string; version?: number }>>();
    upserted(reference, messages(clean.stdout));
    const info = await fx.admin('GET', '/_emulator/exports/info');
    expect(reference.get('contacts')!.size).toBe(info.contacts);

    // ~21 pages of contacts and dozens of event pages at 30 ms or more each: several seconds a run.
    await fx.faults({ latencyMs: 30 });
    const random = mulberry32(37);
    const tables = new Map<string, Map<string, { record: string; version?: number }>>();
    let state: Message | undefined;
    let kills = 0;
    let activated: number | undefined;
    for (let round = 0; round < 5; round++) {
      const child = spawnTap(['--config', config, ...(state ? ['--state', jsonFile('state.json', state)] : [])]);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1500)));
      if (child.kill('SIGKILL')) kills++;
      const ended = await child;
      const msgs = messages(out);
      upserted(tables, msgs);
      activated = msgs.find((m) => m.type === 'ACTIVATE_VERSION' && m.stream === 'contacts')?.version ?? activated;
      state = lastState(msgs) ?? state;
      if (ended.exitCode === 0) break;
    }
    expect(kills).toBeGreaterThan(0);
    await fx.clearFaults();
    const last = await tap(['--config', config, ...(state ? ['--state', jsonFile('state.json', state)] : [])]);
    expect(last.exitCode, last.stderr).toBe(0);
    upserted(tables, messages(last.stdout));
    activated =
      messages(last.stdout).find((m) => m.type === 'ACTIVATE_VERSION' && m.stream === 'contacts')?.version ?? activated;
    for (const stream of Object.keys(STREAM_KEYS)) {
      expect(tables.get(stream)?.size, stream).toBe(reference.get(stream)!.size);
      expect(rowsOf(tables.get(stream)), stream).toEqual(rowsOf(reference.get(stream)));
    }
    // The full pass the kills cut short was continued with its version: the table holds that version only.
    expect(activated).toBeDefined();
    expect(new Set([...tables.get('contacts')!.values()].map((r) => r.version))).toEqual(new Set([activated]));
    // And from its final STATE: nothing more (but the FULL_TABLE streams, read whole every run).
    const after = await tap(['--config', config, '--state', jsonFile('state.json', lastState(messages(last.stdout)))]);
    const incremental = ['contacts', 'custom_events', 'email_events'];
    expect(messages(after.stdout).filter((m) => m.type === 'RECORD' && incremental.includes(m.stream))).toEqual([]);
  });
});
