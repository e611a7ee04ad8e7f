// What `meltano run TAP TARGET` does with state, without Meltano, for tests that run a Singer
// tap into a target as a user's pipeline does (test/e2e/singer-pipeline.test.ts). Mirrored from
// meltano/meltano (src/meltano/core/...; read, not copied):
// - plugin/singer/tap.py, look_up_state: the last saved state is written to a file of the run and
//   passed as `--state`; none with `--full-refresh`, none when none was saved.
// - plugin/singer/tap.py, apply_catalog_rules, and catalog.py, select_metadata_rules: the
//   discovered catalog gets `selected` in its metadata from the `select` patterns: first `!*.*`
//   (nothing selected), then the patterns that select, then the `!` ones; `stream` alone is
//   `stream` and `stream.*`; `stream.prop` also selects its stream.
// - plugin/singer/target.py, BookmarkWriter.writeline: each line the target prints on stdout is
//   saved at once as the new state (the whole state, not merged); a line that is not JSON is
//   not saved (Meltano logs a warning).
// - block/extract_load.py, ELBExecutionManager: when the tap exits (whatever its code) and its
//   output has reached the target, the target's stdin is closed and the target runs to its end;
//   a target that exits first stops the tap (killed).
// The state is one file the runner owns, replaced atomically (written beside it, then renamed),
// as Meltano's system database commits each state.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A tap or a target: what it runs, its environment, and the config Meltano would write for it. */
export interface SingerCommand {
  /** The executable and its first arguments (`--config FILE` and the rest come after them). */
  argv: string[];
  /** Its whole environment (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Written to a file of the run (mode 600, removed at the end), passed as `--config FILE`. */
  config?: unknown;
}

/** A Singer catalog (`--discover`'s output). */
export interface Catalog {
  streams: CatalogStream[];
}
interface CatalogStream {
  tap_stream_id: string;
  stream?: string;
  schema: { properties?: Record<string, unknown> };
  metadata?: { breadcrumb: string[]; metadata: Record<string, unknown> }[];
}

export interface PipelineOptions {
  tap: SingerCommand;
  target: SingerCommand;
  /** The runner's state file: read for `--state`, replaced by each state the target prints. */
  stateFile: string;
  /** Meltano's `select` patterns (`contacts.*`, `!contacts.email`, `custom_events`); default `*.*`. */
  select?: string[];
  /** The tap's catalog before selection; default: the tap's own discovery (`--discover`). */
  catalog?: Catalog;
  /** `meltano run --full-refresh`: no `--state` (the states the target prints are saved as always). */
  fullRefresh?: boolean;
  /** Both processes killed after this long (default 120 s). */
  timeoutMs?: number;
  /** Called once the tap and the target are started (to kill one). */
  onStart?: (procs: { tap: ChildProcess; target: ChildProcess }) => void;
  /** Called after each state is saved, with the number saved so far in this run. */
  onState?: (saved: number) => void;
}

/** How a process of the pipeline ended. */
export interface ProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export interface PipelineResult {
  tap: ProcessEnd;
  target: ProcessEnd;
  /** The tap was killed because the target ended before it (Meltano's upstream_stop). */
  tapStopped: boolean;
  /** The catalog the tap was given (selection applied): a later run may pass it as `catalog` (Meltano caches it too). */
  catalog: Catalog;
  /** The tap's arguments (files of the run's folder, removed since): `--config`, `--catalog`, maybe `--state`. */
  tapArgs: string[];
  /** Lines the target printed that were JSON, each saved as the state. */
  statesSaved: number;
  /** Lines the target printed that were not JSON (not saved). */
  invalidStateLines: string[];
  /** The state file's text after the run (the last saved state, or the one before), or undefined. */
  state: string | undefined;
}

/** A glob of Meltano's patterns (`*`, `?`) as a regular expression. */
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );

interface SelectRule {
  stream: RegExp;
  /** A property pattern; none: the rule is for the stream itself. */
  property?: RegExp;
  value: boolean;
}

/** Meltano's rules for `patterns`: the selecting ones first, then the `!` ones (later rules win). */
function selectRules(patterns: string[]): SelectRule[] {
  const include: SelectRule[] = [];
  const exclude: SelectRule[] = [];
  for (const raw of patterns) {
    const value = !raw.startsWith('!');
    const [stream, property] = (value ? raw : raw.slice(1)).split(/\.(.*)/s) as [string, string | undefined];
    const rules = value ? include : exclude;
    if (property === undefined || property === '') {
      rules.push({ stream: glob(stream), value }, { stream: glob(stream), property: glob('*'), value });
      continue;
    }
    if (value || property === '*') rules.push({ stream: glob(stream), value });
    rules.push({ stream: glob(stream), property: glob(property), value });
  }
  return [...include, ...exclude];
}

/**
 * The catalog with `selected` set in the metadata of every stream and top-level property, as
 * Meltano sets it from its `select` patterns (a copy; `catalog` is left as it is).
 */
function applySelect(catalog: Catalog, patterns: string[]): Catalog {
  const rules = [...selectRules(['!*.*']), ...selectRules(patterns)];
  const copy = structuredClone(catalog);
  for (const s of copy.streams) {
    const metadata = (s.metadata ??= []);
    const entry = (breadcrumb: string[]) => {
      const found = metadata.find((m) => m.breadcrumb.join('\0') === breadcrumb.join('\0'));
      if (found) return found.metadata;
      const created = { breadcrumb, metadata: {} as Record<string, unknown> };
      metadata.push(created);
      return created.metadata;
    };
    const id = s.tap_stream_id;
    for (const rule of rules.filter((r) => r.stream.test(id))) {
      if (!rule.property) entry([]).selected = rule.value;
      else
        for (const p of Object.keys(s.schema.properties ?? {}).filter((name) => rule.property!.test(name)))
          entry(['properties', p]).selected = rule.value;
    }
  }
  return copy;
}

/** Writes `doc` to `dir/name` readable by this user only; returns the path. */
function privateFile(dir: string, name: string, doc: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc), { mode: 0o600 });
  return path;
}

/** Collects a stream's text. */
function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (c: string) => (text += c));
  return () => text;
}

/** Runs `cmd` to its end; resolves to its stdout, rejects with its stderr when it fails. */
function runToEnd(cmd: SingerCommand, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.argv[0]!, [...cmd.argv.slice(1), ...args], {
      env: cmd.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out()) : reject(new Error(`${args.join(' ')} exited ${code}: ${err().trim()}`)),
    );
  });
}

/** Saves `text` as the state file at once: written beside it, then renamed over it. */
function saveState(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Starts a process of the pipeline; resolves how it ended once it exited and its streams closed. */
function start(cmd: SingerCommand, args: string[], stdin: 'pipe' | 'ignore') {
  const child = spawn(cmd.argv[0]!, [...cmd.argv.slice(1), ...args], {
    env: cmd.env ?? process.env,
    stdio: [stdin, 'pipe', 'pipe'],
  });
  const stderr = collect(child.stderr);
  const ended = new Promise<ProcessEnd>((resolve) => {
    child.on('error', (e) => resolve({ exitCode: null, signal: null, stderr: `${stderr()}${e.message}\n` }));
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stderr: stderr() }));
  });
  return { child, ended };
}

type Started = ReturnType<typeof start>;

/**
 * The tap's stdout into the target's stdin; once the tap ended (whatever its code) and its output
 * went in, the target's stdin is closed; a target that ends first stops the tap. Resolves, once
 * both ended, whether the tap was stopped.
 */
async function connect(tap: Started, target: Started): Promise<boolean> {
  const stdin = target.child.stdin!;
  stdin.on('error', () => undefined); // EPIPE: the target ended first
  tap.child.stdout!.pipe(stdin, { end: false });
  let tapDone = false;
  let tapStopped = false;
  void tap.ended.then(() => {
    tapDone = true;
    stdin.end();
  });
  void target.ended.then(() => {
    if (tapDone) return;
    tapStopped = true;
    tap.child.kill('SIGKILL');
  });
  await Promise.all([tap.ended, target.ended]);
  return tapStopped;
}

/** Saves each line the target prints that is JSON as the state, at once; counts them, keeps the others. */
function saveEachState(target: Started, stateFile: string, onState?: (saved: number) => void) {
  const saved = { count: 0, invalid: [] as string[] };
  createInterface({ input: target.child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
    if (!line.trim()) return;
    try {
      JSON.parse(line);
    } catch {
      saved.invalid.push(line);
      return;
    }
    saveState(stateFile, `${line.trim()}\n`);
    saved.count++;
    onState?.(saved.count);
  });
  return saved;
}

/** The tap into the target once, with state as `meltano run` keeps it (the header says how). */
export async function runPipeline(opts: PipelineOptions): Promise<PipelineResult> {
  const dir = mkdtempSync(join(tmpdir(), 'singer-pipeline-'));
  try {
    const configArgs = (cmd: SingerCommand, name: string) =>
      cmd.config === undefined ? [] : ['--config', privateFile(dir, `${name}.config.json`, cmd.config)];
    const tapConfig = configArgs(opts.tap, 'tap');
    const discovered = opts.catalog ?? (JSON.parse(await runToEnd(opts.tap, [...tapConfig, '--discover'])) as Catalog);
    const selected = applySelect(discovered, opts.select ?? ['*.*']);
    const saved = !opts.fullRefresh && existsSync(opts.stateFile) ? readFileSync(opts.stateFile, 'utf8') : undefined;
    const tapArgs = [
      ...tapConfig,
      '--catalog',
      privateFile(dir, 'tap.properties.json', selected),
      ...(saved ? ['--state', privateFile(dir, 'state.json', saved)] : []),
    ];

    const target = start(opts.target, configArgs(opts.target, 'target'), 'pipe');
    const tap = start(opts.tap, tapArgs, 'ignore');
    opts.onStart?.({ tap: tap.child, target: target.child });
    const states = saveEachState(target, opts.stateFile, opts.onState);
    const timer = setTimeout(() => {
      tap.child.kill('SIGKILL');
      target.child.kill('SIGKILL');
    }, opts.timeoutMs ?? 120_000);
    const tapStopped = await connect(tap, target);
    clearTimeout(timer);
    return {
      tap: await tap.ended,
      target: await target.ended,
      tapStopped,
      catalog: selected,
      tapArgs,
      statesSaved: states.count,
      invalidStateLines: states.invalid,
      state: existsSync(opts.stateFile) ? readFileSync(opts.stateFile, 'utf8') : undefined,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
