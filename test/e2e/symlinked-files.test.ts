import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchFiles } from '../helpers/batch-files.js';
import { cnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// Issue 38: a symbolic link put where cnv keeps a file is never written through. State, snapshot,
// records and config are refused by name (exit 8, `... is a symbolic link, not a regular file:
// remove it`); locks and caches are replaced (the link itself goes). Either way the file the link
// points at, an unrelated file of the user's, is unchanged. Before, `contacts sync` and `export
// contacts --full` noted the state was damaged, rebuilt it and wrote it through the link (exit 0).
const fx = useEmulator();
const { dir, write } = batchFiles('cnv-symlinked-');
const VICTIM = '{"precious": true}\n';

interface Case {
  name: string;
  /** Runs what makes the file, returns its path and the command that writes it again. */
  setup: (configDir: string) => Promise<{ path: string; again: string[]; stdin?: string }>;
  rule: 'refuse' | 'replace';
  what?: string;
}

const run = (configDir: string, args: string[], input?: string) =>
  cnv(args, {
    env: { ...fx.env, CNV_CONFIG_DIR: configDir },
    timeoutMs: 20_000,
    ...(input === undefined ? {} : { input }),
  });

async function made(configDir: string, args: string[]): Promise<void> {
  const res = await run(configDir, args);
  expect(res.exitCode, `${args.join(' ')}: ${res.stderr}`).toBe(0);
}

const syncFile = () =>
  write(`sync-${Math.random().toString(16).slice(2)}.csv`, 'email,firstName\nlinked@example.com,Ada\n');
const stateOf = (configDir: string, suffix: string) => {
  const exports = join(configDir, 'exports');
  const name = readdirSync(exports).find(
    (n) =>
      n.endsWith('.json') &&
      (JSON.parse(readFileSync(join(exports, n), 'utf8')) as { state: { key: string } }).state.key.endsWith(suffix),
  );
  return join(exports, name!);
};
const syncAt = (configDir: string, ext: string) =>
  join(
    configDir,
    'sync',
    readdirSync(join(configDir, 'sync')).find((n) => n.endsWith(ext))!,
  );

async function exported(configDir: string) {
  const out = join(dir, `out-${Math.random().toString(16).slice(2)}.ndjson`);
  await made(configDir, ['export', 'contacts', '--out', out, '--state-key', 'k']);
  return { out, again: ['export', 'contacts', '--out', out, '--state-key', 'k', '--full'] };
}

const CASES: Case[] = [
  {
    name: 'the export state of contacts sync',
    rule: 'refuse',
    what: 'export state',
    setup: async (configDir) => {
      const file = syncFile();
      await made(configDir, ['contacts', 'sync', '--file', file]);
      return { path: stateOf(configDir, '/contacts-sync'), again: ['contacts', 'sync', '--file', file] };
    },
  },
  {
    name: 'the export state of export contacts --full',
    rule: 'refuse',
    what: 'export state',
    setup: async (configDir) => {
      const { again } = await exported(configDir);
      return { path: stateOf(configDir, 'k'), again };
    },
  },
  {
    name: 'the sync snapshot',
    rule: 'refuse',
    what: 'sync snapshot',
    setup: async (configDir) => {
      const file = syncFile();
      await made(configDir, ['contacts', 'sync', '--file', file]);
      return { path: syncAt(configDir, '.ndjson'), again: ['contacts', 'sync', '--file', file] };
    },
  },
  {
    name: "an output file's record",
    rule: 'refuse',
    what: 'output file record',
    setup: async (configDir) => {
      const { out, again } = await exported(configDir);
      const { dev, ino } = statSync(out);
      return { path: join(configDir, 'exports', 'files', `${dev}-${ino}.owner`), again };
    },
  },
  {
    name: 'the config file',
    rule: 'refuse',
    what: 'config file',
    setup: async (configDir) => {
      const first = await run(
        configDir,
        ['config', 'set-key', '--profile', 'one', '--no-verify'],
        'sk_live_first_key_0123456789abcdef',
      );
      expect(first.exitCode, first.stderr).toBe(0);
      return {
        path: join(configDir, 'config.json'),
        again: ['config', 'set-key', '--profile', 'two', '--no-verify'],
        stdin: 'sk_live_second_key_0123456789abcd',
      };
    },
  },
  {
    name: "an export state's lock",
    rule: 'replace',
    setup: async (configDir) => {
      const { again } = await exported(configDir);
      return { path: `${stateOf(configDir, 'k')}.lock`, again };
    },
  },
  {
    name: 'the field definitions cache',
    rule: 'replace',
    setup: async (configDir) => {
      await made(configDir, ['contacts', 'upsert', '--email', 'cache@example.com', '--field', 'city=Oslo']);
      const cache = join(configDir, 'cache');
      return {
        path: join(
          cache,
          readdirSync(cache).find((n) => n.startsWith('fields-'))!,
        ),
        again: ['contacts', 'upsert', '--email', 'cache@example.com', '--field', 'city=Bergen'],
      };
    },
  },
];

describe('a symbolic link where cnv keeps a file is never written through (binary)', () => {
  it.each(CASES)('$name: $rule', async ({ setup, rule, what }) => {
    const configDir = tempConfigDir();
    const { path, again, stdin } = await setup(configDir);
    const victim = join(dir, `victim-${Math.random().toString(16).slice(2)}.json`);
    writeFileSync(victim, VICTIM);
    rmSync(path, { force: true });
    symlinkSync(victim, path);

    const res = await run(configDir, again, stdin);
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM);
    if (rule === 'refuse') {
      expect(res.exitCode, res.stderr).toBe(8);
      expect(res.stderr).toContain(
        `error: file_system_error: the ${what} ${path} is a symbolic link, not a regular file: remove it`,
      );
      expect(lstatSync(path).isSymbolicLink()).toBe(true);
    } else {
      expect(res.exitCode, res.stderr).toBe(0);
      // The lock is released at the end; a cache is left as a regular file. Neither is the link.
      const left = (() => {
        try {
          return lstatSync(path);
        } catch {
          return undefined;
        }
      })();
      expect(left?.isSymbolicLink() ?? false).toBe(false);
    }
  });
});

describe('a special file at the sync snapshot: the documented message, not EEXIST (binary)', () => {
  const KINDS: Array<[string, (path: string) => void]> = [
    ['a FIFO', (path) => execFileSync('mkfifo', [path])],
    ['a directory', (path) => mkdirSync(path)],
    ['a symbolic link', (path) => symlinkSync('/dev/null', path)],
  ];
  it.each(KINDS)('the sync snapshot is %s: exit 8, "... not a regular file: remove it"', async (kind, make) => {
    const configDir = tempConfigDir();
    const file = syncFile();
    await made(configDir, ['contacts', 'sync', '--file', file]);
    const path = syncAt(configDir, '.ndjson');
    rmSync(path, { force: true });
    make(path);
    const res = await run(configDir, ['contacts', 'sync', '--file', file]);
    expect(res.stderr).toContain(
      `error: file_system_error: the sync snapshot ${path} is ${kind}, not a regular file: remove it`,
    );
    expect(res.stderr).not.toContain('EEXIST');
    expect(res.exitCode).toBe(8);
  });
});
