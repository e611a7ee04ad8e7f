import { Option, type Command } from 'commander';
import { z } from 'zod';
import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { setBrief } from './flag-brief.js';

/**
 * One flag, declared once: commander's flags text and help line, how commander reads its value
 * (a parser, choices, a default), and the zod schema of the value that reading produces. A
 * command's table of them (`commandOptions`) gives commander its options and `run` its schema.
 */
interface Flag<S extends z.ZodType = z.ZodType> {
  readonly flags: string;
  /** The whole description: `cnv help <command>` and docs/commands.md show it. */
  readonly description: string;
  /**
   * One line for `--help` when the description is longer than a line of 80 columns leaves it
   * (about 45 characters); without it the page cuts the description at a clause (help-layout.ts).
   */
  readonly brief?: string;
  readonly schema: S;
  /** commander's argument parser: a number's bounds, a choice in any case, a repeatable flag's collector. */
  readonly parse?: (value: string, previous: never) => unknown;
  /** commander's choices: shown in the help, checked as given. */
  readonly choices?: readonly string[];
  readonly defaultValue?: unknown;
}

export function flag<S extends z.ZodType>(
  flags: string,
  description: string,
  schema: S,
  more: Pick<Flag, 'parse' | 'choices' | 'defaultValue'> = {},
): Flag<S> {
  return { flags, description, schema, ...more };
}

/** The flag with the one line its `--help` shows (its description is longer than the line leaves it). */
export const withBrief = <F extends Flag>(f: F, brief: string): F => ({ ...f, brief });

/** A flag with a text value: `--out <file>`. */
export const textFlag = (flags: string, description: string, parse?: (value: string) => string) =>
  flag(flags, description, z.string().optional(), { parse });

/** A switch: `--full`. (A `--no-x` switch is `flag(…, z.boolean())`: commander gives it true by default.) */
export const switchFlag = (flags: string, description: string) => flag(flags, description, z.boolean().optional());

/** A flag with a number, read by `parse` (`integer(1, 64)`, `pageSize(1, 100)`). */
export const numberFlag = (flags: string, description: string, parse: (value: string) => number) =>
  flag(flags, description, z.number().optional(), { parse });

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A repeatable flag with a text value: every value given, in order. */
export const listFlag = (flags: string, description: string) =>
  flag(flags, description, z.array(z.string()).optional(), { parse: collect });

type FlagTable = Record<string, Flag>;
type GlobalKey = keyof GlobalOptions;
type Shape<F extends FlagTable> = { [K in keyof F]: F[K]['schema'] };

/** What `run` receives: the command's own options, and the global ones its rules read. */
export type OptionValues<F extends FlagTable, G extends GlobalKey = never> = z.output<z.ZodObject<Shape<F>>> &
  Pick<GlobalOptions, G>;

/** A command's options: commander's, and the schema the loader validates them with before `run`. */
export interface CommandOptions<T = unknown> {
  readonly flags: Readonly<FlagTable>;
  /** The global options (as the program parsed them) that the schema reads beside the command's own. */
  readonly globals: readonly GlobalKey[];
  readonly schema: z.ZodType<T>;
  /** Adds the flags to the command, in the table's order. */
  addTo(cmd: Command): void;
}

/**
 * A command's options from its table of flags: each flag is declared once, and commander's
 * options and the zod schema both come from it. `check` holds the rules that span several flags
 * (or a flag and a global option named in `globals`): it throws the UsageError a user sees
 * (message, hint and code as they are), which the schema reports as its issue (superRefine), so
 * the loader refuses the options before `run` (exit 2).
 */
export function commandOptions<F extends FlagTable, G extends GlobalKey = never>(
  flags: F,
  rules: { globals?: readonly G[]; check?: (opts: OptionValues<F, G>) => void } = {},
): CommandOptions<OptionValues<F, G>> {
  const globals = rules.globals ?? [];
  const shape: Record<string, z.ZodType> = Object.fromEntries(Object.entries(flags).map(([key, f]) => [key, f.schema]));
  for (const key of globals) shape[key] = z.custom<unknown>(() => true).optional();
  const check = rules.check;
  const object = z.object(shape);
  const schema = check
    ? object.superRefine((value, ctx) => refuse(ctx, () => check(value as OptionValues<F, G>)))
    : object;
  return {
    flags,
    globals,
    schema: schema as unknown as z.ZodType<OptionValues<F, G>>,
    addTo(cmd) {
      for (const [key, f] of Object.entries(flags)) {
        const option = new Option(f.flags, f.description);
        if (f.brief) setBrief(option, f.brief);
        if (f.choices) option.choices(f.choices);
        if (f.parse) option.argParser(f.parse as (value: string, previous: unknown) => unknown);
        if (f.defaultValue !== undefined) option.default(f.defaultValue);
        // The table's key is the name commander gives the value: a mismatch is a bug, found at once.
        if (option.attributeName() !== key)
          throw new Error(`flag ${f.flags}: declared as "${key}", read by commander as "${option.attributeName()}"`);
        cmd.addOption(option);
      }
    },
  };
}

/** Runs a rule; the UsageError it throws becomes the schema's issue, carrying the error itself. */
function refuse(ctx: z.RefinementCtx, rule: () => void): void {
  try {
    rule();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message, params: { usage: err } });
  }
}

/** The values of a command's options, as `run` receives them (`ValuesOf<typeof options>`). */
export type ValuesOf<O> = O extends CommandOptions<infer V> ? V : never;
