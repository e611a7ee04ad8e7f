/**
 * The contract between the CLI and a command file: types only, so importing it costs nothing
 * at start-up. The command tree itself (names, summaries, loaders) is src/cli/registry.ts.
 */
import type { Command } from 'commander';
import type { CommandOptions } from './flags.js';
import type { Context } from '../context.js';
import type { CommandResult } from '../output/render.js';
import type { JsonOutput } from './json-output.js';

/**
 * What a command file under src/commands exports. `options` is its table of flags (declared
 * once: src/cmdutil/flags.ts): the loader adds them to commander and validates what commander
 * read with the schema made from the same table, cross-flag rules included (a failure is a usage
 * error naming the flag), so `run` receives them typed.
 */
interface CommandModule<T = unknown> {
  options: CommandOptions<T>;
  /**
   * The command's JSON output, declared once beside its flag table: the one document it prints
   * with --json (and when stdout is not a terminal, for a command whose data is that document),
   * and what -q/--query selects from; every command has one. A function, so its schemas are
   * built only when asked: its help's JSON OUTPUT (src/cli/program.ts), docs/output.md's table
   * (`npm run docs`) and test/cli/json-contract.test.ts, which validates the real output
   * against it. A command that writes no data to stdout (a file run, an export into --out)
   * prints its result document (the --summary-json one) with --json or -q (a file or batch run
   * through `batchDepsOf(ctx)`, an export's reporter through `reporterDepsOf(ctx)`: their
   * `printDocument`; else a `{ kind: 'document' }` result); where stdout carries its data (rows,
   * a report) its option check refuses --json and -q naming the flag to use instead
   * (`refuseJsonWhenStdoutIsData`).
   */
  output: () => JsonOutput;
  /** Arguments and help text (with at least one example); the flags come from `options`. */
  configure(cmd: Command): void;
  run(ctx: Context, input: CommandInput<T>): Promise<CommandResult>;
}

/** What `run` receives; `typeof options` of the command's own module names its options' type. */
export interface CommandInput<T = unknown> {
  /** Declared positional arguments, in order. */
  args: unknown[];
  /** The command's own options (camelCase keys), and the global ones its rules read, validated. */
  opts: T extends CommandOptions<infer V> ? V : T;
}

export interface LeafEntry {
  name: string;
  summary: string;
  aliases?: string[];
  /** -o/--format names the format of the command's file (the exports), not of its output: --json does not conflict with it. */
  formatIsFile?: boolean;
  /** -o markdown means something to it (the tap's and the target's --about); every other command refuses it. */
  markdown?: boolean;
  /** The global flags (long names) that mean something to this command; its help lists only these. Default: all. */
  globals?: readonly string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each module has its own options type
  load: () => Promise<CommandModule<any>>;
}

export interface GroupEntry {
  name: string;
  summary: string;
  aliases?: string[];
  /** Shown under the group's help (`cnv contacts --help`, `cnv help contacts`). */
  examples: string[];
  children: Entry[];
}

export type Entry = LeafEntry | GroupEntry;
