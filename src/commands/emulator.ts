import { InvalidArgumentError, type Command } from 'commander';
import type { CommandInput } from '../cli/registry.js';
import { integer } from '../cli/parse.js';
import type { Context } from '../context.js';
import type { CommandResult } from '../io/render.js';
import { UsageError } from '../errors.js';

function rate(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`expected a share from 0 to 1, got "${text}"`);
  return n;
}

function seed(text: string): 'demo' | 'none' | number {
  if (text === 'demo' || text === 'none') return text;
  if (/^\d+$/.test(text)) return Number(text);
  throw new InvalidArgumentError(`expected demo, none or a number, got "${text}"`);
}

export function configure(cmd: Command): void {
  cmd
    .option('--port <n>', 'port to listen on (0 picks a free one)', integer(0, 65535), 4010)
    .option('--host <host>', 'interface to listen on (loopback only is sensible)', '127.0.0.1')
    .option('--seed <demo|none|N>', 'demo data, none, or demo data generated from seed N', seed, 'demo' as const)
    .option('--fail-rate <r>', 'share of /v2 requests answered 500 internal_error', rate, 0)
    .option('--drop-rate <r>', 'share of /v2 requests whose connection is dropped without an answer', rate, 0)
    .option('--latency <ms>', 'delay added to every /v2 answer', integer(0), 0)
    .option('--rate-limit <n>', 'requests per second per business before 429 (0: no limit)', integer(0), 200)
    .option('--seed-contacts <n>', 'extra generated contacts for export benchmarks (read-only, seen only by the exports)', integer(0, 100_000_000), 0)
    .option('--seed-events <n>', 'extra generated custom events, and as many email events, for export benchmarks', integer(0, 100_000_000), 0)
    .addHelpText('after', `
Prints the base URL and the demo API keys, then serves until Ctrl-C. Admin routes for tests
live under /_emulator (see docs/emulator.md).

Examples:
  $ cnv emulator --port 4010
  $ cnv emulator --port 0 --fail-rate 0.1 --latency 50
  $ cnv emulator --seed-contacts 1000000 --seed-events 1000000 --rate-limit 0
  $ eval "$(cnv emulator --port 4010 --json | jq -r '"export CNV_BASE_URL=\\(.url) CNV_API_KEY=\\(.keys.full)"')"`);
}

export async function run(ctx: Context, { opts }: CommandInput): Promise<CommandResult> {
  const { startEmulator, describeEmulator } = await import('../emulator/index.js');
  const emulator = await startEmulator({
    port: opts.port as number,
    host: opts.host as string,
    seed: opts.seed as 'demo' | 'none' | number,
    failRate: opts.failRate as number,
    dropRate: opts.dropRate as number,
    latencyMs: opts.latency as number,
    rateLimit: opts.rateLimit as number,
    seedContacts: opts.seedContacts as number,
    seedEvents: opts.seedEvents as number,
    quiet: true,
  }).catch((err: unknown) => {
    throw listenError(err, opts.port as number, opts.host as string) ?? err;
  });
  const host = opts.host as string;
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host)) {
    ctx.warn(`listening on ${host}: anyone who can reach it may use the demo keys printed here and the admin routes under /_emulator, which take no key`);
  }
  const summary = { url: emulator.url, keys: emulator.keys };
  ctx.io.stdout.write(ctx.globals.json ? JSON.stringify(summary) + '\n' : describeEmulator(emulator) + '\n');
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  ctx.info('emulator stopped');
  return { kind: 'none' };
}

/** A port or interface that cannot be listened on is the user's to change (exit 2), not a bug. */
function listenError(err: unknown, port: number, host: string): UsageError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new UsageError(`port ${port} on ${host} is already in use (EADDRINUSE)`, 'pick another with --port N, or --port 0 to take a free one (the URL is printed)', 'port_in_use');
  }
  if (code === 'EACCES') {
    return new UsageError(`not allowed to listen on port ${port} on ${host} (EACCES)`, 'ports below 1024 need privileges: use --port 4010, or --port 0 to take a free one', 'port_denied');
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UsageError(`cannot listen on --host ${host}: no such local interface (${code})`, 'use --host 127.0.0.1 (the default)', 'bad_host');
  }
  return undefined;
}
