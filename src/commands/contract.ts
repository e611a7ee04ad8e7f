/**
 * The contract between the CLI and a command file: types only, so importing it costs nothing
 * at start-up. The command tree itself (names, summaries, loaders) is src/cli/registry.ts.
 */
import type { Command } from 'commander';
import type { z } from 'zod';
import type { Context } from '../context.js';
import type { CommandResult } from '../io/render.js';

/**
 * What a command file under src/commands exports. `S` is its options schema: the loader
 * validates commander's options with it (a failure is a usage error naming the flag), so `run`
 * receives them typed.
 */
export interface CommandModule<S extends z.ZodType = z.ZodType> {
  /** The command's own options as commander produces them (camelCase keys, parsers applied). */
  options: S;
  /** Arguments, options and help text (with at least one example). */
  configure(cmd: Command): void;
  run(ctx: Context, input: CommandInput<S>): Promise<CommandResult>;
}

export interface CommandInput<S extends z.ZodType = z.ZodType> {
  /** Declared positional arguments, in order. */
  args: unknown[];
  /** The command's own options (camelCase keys), validated by its schema. */
  opts: z.output<S>;
}

export interface LeafEntry {
  name: string;
  summary: string;
  aliases?: string[];
  /**
   * The command's JSON output contract: the one document it prints when stdout is not a
   * terminal, with --json, and what -q/--query selects from. Absent: the command prints no JSON
   * document (export rows, the emulator's banner) and -q is refused.
   */
  json?: string;
  /** The global flags (long names) that mean something to this command; its help lists only these. Default: all. */
  globals?: readonly string[];
  load: () => Promise<CommandModule>;
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
