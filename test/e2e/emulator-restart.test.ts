import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';

// An emulator restarted with the same seed and port (as a CI job does) is a new life: the
// cursors of the earlier one are invalid_cursor, as a real server's would be. `export` stops
// (exit 3) with the hint of its own flag; `contacts sync` rebuilds its snapshot (a cache).

// 3,000 bulk contacts and the demo ones: more than one page of 5,000, so a cursor is saved.
const start = (port = 0): Promise<Emulator> => startEmulator({ port, seedContacts: 3000, quiet: true });

async function restarted(emu: Emulator): Promise<Emulator> {
  await emu.close();
  return start(emu.port);
}

describe('an emulator restarted under a saved cursor (binary)', () => {
  it('export: refused with invalid_cursor (exit 3), the state unchanged, the hint naming --full; --full then starts over', async () => {
    let emu = await start();
    const env = { CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full, CNV_CONFIG_DIR: tempConfigDir() };
    const out = join(mkdtempSync(join(tmpdir(), 'cnv-restart-')), 'contacts.ndjson');
    try {
      expect((await cnv(['export', 'contacts', '--out', out], { env })).exitCode).toBe(0);
      emu = await restarted(emu);
      const res = await cnv(['export', 'contacts', '--out', out], { env });
      expect(res.exitCode).toBe(3);
      expect(res.stderr).toMatch(
        /invalid_cursor: the server rejected the saved cursor of export state .*the state is unchanged/,
      );
      expect(res.stderr).toMatch(/hint: .*run again with --full to export everything/);
      expect((await cnv(['export', 'contacts', '--out', out, '--full'], { env })).exitCode).toBe(0);
    } finally {
      await emu.close();
    }
  });

  it('contacts sync: rebuilds the snapshot by a full refresh with a note, and compares against the account as it is now', async () => {
    let emu = await start();
    const env = { CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full, CNV_CONFIG_DIR: tempConfigDir() };
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-restart-')), 'in.csv');
    writeFileSync(file, 'email,city\nbulk.7@example.com,Reykjavik\n');
    try {
      const first = await cnv(['contacts', 'sync', '--file', file, '--quiet'], { env });
      expect(first.exitCode).toBe(0);
      // The new life holds the seeded data again: the write of the first run is gone.
      emu = await restarted(emu);
      const summary = join(mkdtempSync(join(tmpdir(), 'cnv-restart-')), 'summary.json');
      const res = await cnv(['contacts', 'sync', '--file', file, '--plan', '--exit-code', '--summary-json', summary], {
        env,
      });
      expect(res.stderr).toMatch(
        /note: the server refused the snapshot's saved cursor \(invalid_cursor[^)]*\): rebuilding it from a full refresh/,
      );
      expect(res.exitCode).toBe(9);
      expect(res.stdout).toMatch(/"action":"update","contact":"bulk.7@example.com"/);
      const { sync } = JSON.parse(readFileSync(summary, 'utf8'));
      expect(sync.snapshot).toMatchObject({ full: true, reason: expect.stringMatching(/invalid_cursor/) });
    } finally {
      await emu.close();
    }
  });

  it("contacts sync: a cursor refused within a full refresh stops it (exit 3) with the hint of its own flag, --full-refresh, not the export's --full", async () => {
    // The server is reset between the first and the second page of the first (full) refresh.
    let resets = 0;
    const emu = await startEmulator({
      port: 0,
      seedContacts: 3000,
      verbose: true,
      log: (line) => {
        if (resets === 0 && /POST \/v2\/exports\/contacts.* 200/.test(line)) {
          resets++;
          emu.store.reset();
        }
      },
    });
    const env = { CNV_BASE_URL: emu.url, CNV_API_KEY: emu.keys.full, CNV_CONFIG_DIR: tempConfigDir() };
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-restart-')), 'in.csv');
    writeFileSync(file, 'email,city\nbulk.7@example.com,Reykjavik\n');
    try {
      const res = await cnv(['contacts', 'sync', '--file', file, '--plan'], { env });
      expect(resets).toBe(1);
      expect(res.exitCode).toBe(3);
      expect(res.stderr).toMatch(/invalid_cursor/);
      expect(res.stderr).toMatch(/hint: .*--full-refresh/);
      expect(res.stderr).not.toMatch(/--full(?!-refresh)/);
    } finally {
      await emu.close();
    }
  });
});
