import { lstat } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { z } from 'zod';
import type { CommandInput } from '../../cmdutil/contract.js';
import type { Context } from '../../context.js';
import type { CommandResult } from '../../output/render.js';
import { outputOf } from '../../cmdutil/context-deps.js';
import { asksForDocument, documentText } from '../../output/document.js';
import { LocalFileError, UsageError } from '../../errors.js';
import { integer } from '../../lib/option-values.js';
import { commandOptions, flag, textFlag, withBrief } from '../../cmdutil/flags.js';
import type { JsonOutput } from '../../cmdutil/json-output.js';

function rate(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`expected a share from 0 to 1, got "${text}"`);
  return n;
}

function filePath(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('expected a file path, got ""');
  return text;
}

function seed(text: string): 'demo' | 'none' | number {
  if (text === 'demo' || text === 'none') return text;
  if (/^\d+$/.test(text)) return Number(text);
  throw new InvalidArgumentError(`expected demo, none or a number, got "${text}"`);
}

function precision(text: string): 'ms' | 's' {
  if (text === 'ms' || text === 's') return text;
  throw new InvalidArgumentError(`expected ms or s, got "${text}"`);
}

const whole = (flags: string, description: string, parse: (text: string) => number, defaultValue: number) =>
  flag(flags, description, z.number(), { parse, defaultValue });

/** Every option but --ready-file has a default, so each is always present. */
export const options = commandOptions({
  port: whole('--port <n>', 'port to listen on (0 picks a free one)', integer(0, 65535), 4010),
  host: flag('--host <host>', 'interface to listen on (loopback only is sensible)', z.string(), {
    defaultValue: '127.0.0.1',
  }),
  seed: flag(
    '--seed <demo|none|N>',
    'demo data, none, or demo data generated from seed N',
    z.union([z.literal('demo'), z.literal('none'), z.number()]),
    { parse: seed, defaultValue: 'demo' },
  ),
  failRate: whole('--fail-rate <r>', 'share of /v2 requests answered 500 internal_error', rate, 0),
  dropRate: withBrief(
    whole('--drop-rate <r>', 'share of /v2 requests whose connection is dropped without an answer', rate, 0),
    'share of /v2 requests dropped unanswered',
  ),
  latency: whole('--latency <ms>', 'delay added to every /v2 answer', integer(0), 0),
  rateLimit: withBrief(
    whole('--rate-limit <n>', 'requests per second per business before 429 (0: no limit)', integer(0), 200),
    'requests per second before 429 (0: no limit)',
  ),
  seedContacts: withBrief(
    whole(
      '--seed-contacts <n>',
      'extra generated contacts of acme (bulk.<i>@example.com): real contacts, stored only once written, so a million cost no memory',
      integer(0, 100_000_000),
      0,
    ),
    'extra generated contacts (stored when written)',
  ),
  seedEvents: withBrief(
    whole(
      '--seed-events <n>',
      'extra generated custom events, and as many email events, for export benchmarks',
      integer(0, 100_000_000),
      0,
    ),
    'extra generated custom and email events',
  ),
  timestampPrecision: withBrief(
    flag(
      '--timestamp-precision <ms|s>',
      "how contacts' createdAt and updatedAt are shown: ms, or s (whole seconds, as some servers keep them: two writes within a second show one updatedAt)",
      z.enum(['ms', 's']),
      { parse: precision, defaultValue: 'ms' },
    ),
    'timestamps in ms, or s (whole seconds)',
  ),
  readyFile: withBrief(
    textFlag(
      '--ready-file <path>',
      'once listening, write CNV_BASE_URL=... and CNV_API_KEY=... lines to this file (atomically; removed on a clean stop)',
      filePath,
    ),
    'once listening, write CNV_BASE_URL=... to it',
  ),
});

/** What it prints with --json and piped (its help's JSON OUTPUT, docs/output.md, test/cli/json-contract.test.ts). */
export const output = (): JsonOutput => ({
  documents: [
    {
      schema: z.strictObject({
        url: z.string(),
        keys: z.strictObject({ full: z.string(), basic: z.string(), limited: z.string() }),
      }),
      note: 'on one line once it listens, with --json or -q (without them the same as text for people)',
    },
  ],
});

export function configure(cmd: Command): void {
  cmd.addHelpText(
    'after',
    `
Prints the base URL and the demo API keys, then serves until Ctrl-C or SIGTERM. With
--verbose, one line per request on stderr (method, path, status, time). GET /_emulator/health
answers {"ok":true} while it serves. Admin routes for tests live under /_emulator (see
docs/emulator.md).

Examples:
  $ cnv emulator --port 4010
  $ cnv emulator --port 0 --fail-rate 0.1 --latency 50 --verbose
  $ cnv emulator --seed-contacts 1000000 --seed-events 1000000 --rate-limit 0
  $ cnv emulator --timestamp-precision s     # updatedAt in whole seconds, to rehearse such a server

In the background (a script, CI): wait for the ready file, then load it (README.md, "Use the
emulator in CI", has the whole recipe and a GitHub Actions job):
  $ rm -f emu.env; cnv emulator --port 0 --ready-file emu.env >emu.log 2>&1 &
  $ until [ -f emu.env ]; do sleep 0.1; done; set -a; . ./emu.env; set +a`,
  );
}

export async function run(ctx: Context, { opts }: CommandInput<typeof options>): Promise<CommandResult> {
  const readyFile = opts.readyFile;
  if (readyFile !== undefined) await checkReadyFilePath(readyFile);
  const { startEmulator, describeEmulator } = await import('../../emulator/index.js');
  const emulator = await startEmulator({
    port: opts.port,
    host: opts.host,
    seed: opts.seed,
    failRate: opts.failRate,
    dropRate: opts.dropRate,
    latencyMs: opts.latency,
    rateLimit: opts.rateLimit,
    seedContacts: opts.seedContacts,
    seedEvents: opts.seedEvents,
    timestampPrecision: opts.timestampPrecision,
    verbose: ctx.globals.verbose,
    quiet: ctx.globals.quiet,
    log: (line) => ctx.io.stderr.write(`${line}\n`),
  }).catch((err: unknown) => {
    throw listenError(err, opts.port, opts.host) ?? err;
  });
  const host = opts.host;
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host)) {
    ctx.warn(
      `listening on ${host}: anyone who can reach it may use the demo keys printed here and the admin routes under /_emulator, which take no key`,
    );
  }
  let readyText: string | undefined;
  if (readyFile !== undefined) {
    const { readyFileText, writeReadyFile } = await import('../../emulator/ready-file.js');
    readyText = readyFileText(emulator);
    try {
      await writeReadyFile(readyFile, readyText);
    } catch (err) {
      await emulator.close();
      throw readyFileError(err, readyFile);
    }
  }
  const summary = { url: emulator.url, keys: emulator.keys };
  // The document is one line (a reader waits for its newline); -q selects from it (-q url).
  // Not redacted: the demo keys are what it is for, even when one of them is the key in force.
  const out = outputOf(ctx);
  ctx.io.stdout.write(
    asksForDocument(out)
      ? documentText(out, summary, (message) => ctx.warn(message), { oneLine: true })
      : describeEmulator(emulator) + '\n',
  );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  if (readyFile !== undefined && readyText !== undefined) {
    const { removeReadyFile } = await import('../../emulator/ready-file.js');
    await removeReadyFile(readyFile, readyText);
  }
  ctx.info('emulator stopped');
  return { kind: 'none' };
}

/**
 * The ready file replaces a regular file or nothing: replacing a symlink, a device or a directory
 * (`--ready-file /dev/stdout` run as root) would do harm the user did not ask for.
 */
async function checkReadyFilePath(path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing && !existing.isFile()) {
    const what = existing.isSymbolicLink()
      ? 'a symbolic link'
      : existing.isDirectory()
        ? 'a directory'
        : 'a device or other special file';
    throw new UsageError(
      `--ready-file ${path}: is ${what}`,
      'name a new file (it is written once the emulator listens)',
    );
  }
}

/** A ready file that cannot be written: the disk's fault (exit 8) or a path that cannot be one (exit 2). */
export function readyFileError(err: unknown, path: string): unknown {
  const local = LocalFileError.from(err, 'ready file', path);
  if (local) return local;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new UsageError(`--ready-file ${path}: its directory does not exist (${code})`);
  if (code === 'EISDIR') return new UsageError(`--ready-file ${path}: is a directory (EISDIR)`);
  return err;
}

/** A port or interface that cannot be listened on is the user's to change (exit 2), not a bug. */
function listenError(err: unknown, port: number, host: string): UsageError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new UsageError(
      `port ${port} on ${host} is already in use (EADDRINUSE)`,
      'pick another with --port N, or --port 0 to take a free one (the URL is printed)',
      'port_in_use',
    );
  }
  if (code === 'EACCES') {
    return new UsageError(
      `not allowed to listen on port ${port} on ${host} (EACCES)`,
      'ports below 1024 need privileges: use --port 4010, or --port 0 to take a free one',
      'port_denied',
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UsageError(
      `cannot listen on --host ${host}: no such local interface (${code})`,
      'use --host 127.0.0.1 (the default)',
      'bad_host',
    );
  }
  return undefined;
}
