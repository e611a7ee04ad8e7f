import { execFileSync } from 'node:child_process';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { jsonFile, lastState, messages, records, tap, tapConfig, type Message } from '../helpers/tap.js';

// The state tap-cnv reads, through the executable (docs/singer.md, "Messages and state"): a
// cursor the server refuses restarts that stream alone; a bookmark of the Meltano SDK's form
// rewinds a stream to a time; what is not a state (or a catalog, or a config), or not a regular
// file, is refused by name before a byte is read (exit 2).
const fx = useEmulator({ rateLimit: 0 }, { faults: true, stats: true });

const ofType = (msgs: Message[], type: string, stream: string) =>
  msgs.filter((m) => m.type === type && m.stream === stream);

describe('the state', () => {
  it('a cursor of the state the server refuses restarts that stream alone (a full pass), with a note; the others keep their bookmarks', async () => {
    const config = tapConfig(fx);
    const first = messages((await tap(['--config', config])).stdout);
    const state = lastState(first)!;
    state.bookmarks.contacts.cursor = 'not-a-cursor-of-this-server';
    const r = await tap(['--config', config, '--state', jsonFile('state.json', state)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: contacts: the server refused the state's cursor \(.*\): contacts \(a full pass\) starts over from its beginning; the other streams keep their bookmarks/,
    );
    const msgs = messages(r.stdout);
    expect(records(msgs, 'contacts').length).toBe(records(first, 'contacts').length);
    expect(ofType(msgs, 'ACTIVATE_VERSION', 'contacts')).toHaveLength(1);
    expect(records(msgs, 'custom_events')).toEqual([]);
    expect(records(msgs, 'email_events')).toEqual([]);
  });

  it("a bookmark of the SDK's form (replication_key_value) rewinds its stream: rows from that time, the others as their bookmarks say", async () => {
    const config = tapConfig(fx);
    const first = messages((await tap(['--config', config])).stdout);
    const since = '2025-01-02T00:00:00.000Z';
    const state = lastState(first)!;
    state.bookmarks.custom_events = { replication_key: 'occurredAt', replication_key_value: since };
    state.bookmarks.contacts = { replication_key_value: '2025-01-02' };
    const r = await tap(['--config', config, '--state', jsonFile('state.json', state)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const at = Date.parse(since);
    const events = records(msgs, 'custom_events');
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBe(records(first, 'custom_events').filter((e) => Date.parse(e.occurredAt) >= at).length);
    const contacts = records(msgs, 'contacts');
    expect(contacts.length).toBe(records(first, 'contacts').filter((c) => Date.parse(c.updatedAt) >= at).length);
    expect(contacts.length).toBeLessThan(records(first, 'contacts').length);
    // Not a full pass: no ACTIVATE_VERSION (older contacts were not emitted); email events continue.
    expect(ofType(msgs, 'ACTIVATE_VERSION', 'contacts')).toEqual([]);
    expect(records(msgs, 'email_events')).toEqual([]);
    // The next STATE holds the tap's own bookmark again.
    expect(lastState(msgs)!.bookmarks.custom_events).toMatchObject({ since, replication_key: 'occurredAt' });
    expect(lastState(msgs)!.bookmarks.custom_events.replication_key_value).toBeUndefined();
  });

  it('a document that is not a state is refused by name, exit 2, nothing sent', async () => {
    const config = tapConfig(fx);
    await fx.resetStats();
    const cases: Array<[unknown, RegExp]> = [
      [
        { base_url: fx.emulator.url, api_key: 'x' },
        /not a state of this tap: it has base_url, api_key \(a state has bookmarks\)/,
      ],
      [{ bookmarks: { contact: {} } }, /not a state of this tap: bookmarks\.contact: no stream "contact" in this tap/],
      [[1, 2], /not a state of this tap: not a JSON object/],
      [
        { bookmarks: { contacts: { replication_key_value: 'yesterday' } } },
        /replication_key_value: expected an ISO 8601 time/,
      ],
    ];
    for (const [doc, message] of cases) {
      const r = await tap(['--config', config, '--state', jsonFile('state.json', doc)]);
      expect(r.exitCode, JSON.stringify(doc)).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const catalog = await tap(['--config', config, '--catalog', config]);
    expect(catalog.exitCode).toBe(2);
    expect(catalog.stderr).toMatch(/--catalog .*: not a catalog: no streams \(it has base_url, api_key\)/);
    const state = jsonFile('state.json', { bookmarks: {} });
    const asConfig = await tap(['--config', state]);
    expect(asConfig.exitCode).toBe(2);
    expect(asConfig.stderr).toMatch(/unknown setting bookmarks/);
    expect(asConfig.stderr).toMatch(/needs api_key and base_url .*\(it has bookmarks\)/);
    expect((await fx.stats()).total).toBe(0);
  });
});

describe('--config, --state and --catalog: regular files only, bounded while read', () => {
  it('/dev/zero, /dev/urandom, a link to them, a FIFO, a file past 64 MiB: refused at once, exit 2', async () => {
    const dir = tempConfigDir();
    const link = join(dir, 'zero-link.json');
    symlinkSync('/dev/zero', link);
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, 100 * 1024 * 1024); // sparse: no disk used
    const config = tapConfig(fx);
    const cases: Array<[string[], RegExp]> = [
      [['--config', '/dev/urandom'], /--config \/dev\/urandom: a device, not a regular file/],
      [['--config', config, '--state', '/dev/zero'], /--state \/dev\/zero: a device, not a regular file/],
      [['--config', config, '--catalog', link], /--catalog .*zero-link\.json: a device, not a regular file/],
      [['--config', config, '--state', fifo], /--state .*fifo\.json: a FIFO, not a regular file/],
      [['--config', fifo], /--config .*fifo\.json: a FIFO, not a regular file/],
      [['--config', config, '--state', huge], /--state .*huge\.json: the file is larger than 67108864 bytes/],
    ];
    for (const [args, message] of cases) {
      const started = Date.now();
      const r = await tap(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(Date.now() - started, args.join(' ')).toBeLessThan(10_000);
    }
  });
});
