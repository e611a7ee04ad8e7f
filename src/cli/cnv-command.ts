import { Command, type AddHelpTextContext, type AddHelpTextPosition, type HelpContext } from 'commander';
import type { HelpParts } from './help-layout.js';
import { UsageError } from '../errors.js';
import { MISSING_COMMANDS } from './missing-commands.js';
import { jqHint, jsonFieldsHint } from './gh-habits.js';
import { didYouMean, guessText, HINT_MARK, suggest } from '../cmdutil/suggest.js';

/** cnv's error codes for commander's parse errors. */
const CODES: Record<string, string> = {
  'commander.unknownOption': 'unknown_option',
  'commander.unknownCommand': 'unknown_command',
  'commander.invalidArgument': 'invalid_value',
  'commander.missingArgument': 'missing_argument',
  'commander.optionMissingArgument': 'missing_value',
  'commander.missingMandatoryOptionValue': 'missing_option',
  'commander.conflictingOption': 'conflicting_options',
  'commander.excessArguments': 'too_many_arguments',
};

/**
 * commander's Command with cnv's error format: a parse error becomes a UsageError (exit 2)
 * that the one handler prints as `error: <code>: <message>` and a `hint:` line (the usage
 * pointer, or a suggestion that names canonical names only, never an alias).
 */
export class CnvCommand extends Command {
  /** What its help shows besides commander's parts, laid out by help-layout.ts. */
  readonly helpParts: HelpParts = { notes: [] };

  override createCommand(name?: string): Command {
    return new CnvCommand(name);
  }

  /** Text after the help goes into the help's own layout (notes, EXAMPLES), before INHERITED FLAGS. */
  override addHelpText(position: AddHelpTextPosition, text: string): this;
  override addHelpText(position: AddHelpTextPosition, text: (context: AddHelpTextContext) => string): this;
  override addHelpText(position: AddHelpTextPosition, text: string | ((context: AddHelpTextContext) => string)): this {
    if (position === 'after' && typeof text === 'string') {
      this.helpParts.notes.push(text);
      return this;
    }
    return typeof text === 'string' ? super.addHelpText(position, text) : super.addHelpText(position, text);
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    const code = CODES[errorOptions?.code ?? ''] ?? 'usage';
    let text = message.replace(/^error: /, '');
    let hint: string | undefined;
    const mark = text.indexOf(HINT_MARK);
    if (mark >= 0) [text, hint] = [text.slice(0, mark), text.slice(mark + HINT_MARK.length)];
    const reworded = reword(text);
    text = reworded.text;
    hint ??= reworded.hint;
    const flag = /'([^']+)'/.exec(text)?.[1] ?? '';
    if (code === 'unknown_option')
      hint = flag.split('=')[0] === '--jq' ? jqHint(this.givenArgs()) : this.optionHint(flag);
    else if (code === 'too_many_arguments')
      hint =
        jsonFieldsHint(
          this.givenArgs(),
          this.options.some((o) => o.long === '--columns'),
        ) ?? hint;
    else if (code === 'unknown_command') hint = this.commandHint(/'([^']+)'/.exec(text)?.[1] ?? '');
    throw new UsageError(text, hint ?? `see \`${this.path()} --help\``, code);
  }

  /**
   * `cnv` with options but no command (`cnv -v`, `cnv --json`) is a usage error, not a help
   * page exit 0: `-v` is `--verbose`, and a script that meant `--version` should hear so.
   */
  override help(contextOptions?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(contextOptions?: HelpContext | ((str: string) => string)): never {
    const args = this.parent ? [] : (this as unknown as { rawArgs: string[] }).rawArgs;
    if (typeof contextOptions === 'object' && contextOptions.error && args.length > 0) {
      const verbose = args.includes('-v') ? ' (-v is --verbose)' : '';
      throw new UsageError(
        `no command given${verbose}`,
        '`cnv --help` lists the commands; `cnv version` (or `cnv --version`, `-V`) prints the version',
        'missing_command',
      );
    }
    return super.help(contextOptions as HelpContext);
  }

  /** The arguments as given (the root command keeps them). */
  private givenArgs(): string[] {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks up the parents from this command
    let root: Command = this;
    while (root.parent) root = root.parent;
    return (root as unknown as { rawArgs?: string[] }).rawArgs ?? [];
  }

  /** `cnv contacts get`, for hints. */
  path(): string {
    const names: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks up the parents from this command
    for (let c: Command | null = this; c; c = c.parent) names.unshift(c.name());
    return names.join(' ');
  }

  private optionHint(flag: string): string {
    const candidates: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks up the parents from this command
    for (let c: Command | null = this; c; c = c.parent) {
      for (const o of c.options) if (o.long && !o.hidden) candidates.push(o.long);
    }
    // `--colour` is close to `--no-color` once both lose their `--no-`.
    const bare = (f: string) => f.replace(/^--(no-)?/, '');
    const byBare = new Map(candidates.map((f) => [bare(f), f]));
    const guess = guessText(suggest(bare(flag), [...byBare.keys()]).map((b) => byBare.get(b)!));
    return withHelp(guess, this.path());
  }

  private commandHint(name: string): string {
    const missing = MISSING_COMMANDS[`${this.path()} ${name}`];
    if (missing) return `\`${this.path()} ${name}\` does not exist: ${missing}`;
    // An alias counts as its command: `contactz` suggests `contacts`, not also `contact`.
    const byName = new Map<string, string>();
    for (const c of this.commands) for (const n of [c.name(), ...c.aliases()]) byName.set(n, c.name());
    const guess = guessText(suggest(name, [...byName.keys()]).map((n) => byName.get(n)!));
    return withHelp(guess, this.path());
  }
}

/** `did you mean X? (see `cnv … --help`)`, or just the pointer to the help. */
function withHelp(guess: string | undefined, path: string): string {
  return guess ? `${guess} (see \`${path} --help\`)` : `see \`${path} --help\``;
}

/** commander's wording, made shorter and naming the flag first; a choice gets a suggestion. */
function reword(text: string): { text: string; hint?: string } {
  const bad =
    /^option '(?:-\w, )?([^' ]+)[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(text) ??
    /^command-argument value '(.*)' is invalid for argument '([^']+)'\. (.*)$/s
      .exec(text)
      ?.slice(0)
      .map((v, i, a) => (i === 1 ? `<${a[2]}>` : i === 2 ? a[1] : v));
  if (bad) {
    const [, name, value, rest] = bad;
    const choices = /^Allowed choices are (.*)\.$/s.exec(rest)?.[1];
    if (choices)
      return {
        text: `${name}: expected one of ${choices}, got "${value}"`,
        hint: didYouMean(value, choices.split(', ')),
      };
    return { text: `${name}: ${rest}` };
  }
  return { text: text.replace(/^option '(?:-\w, )?([^' ]+)[^']*' argument missing$/, '$1 needs a value') };
}
