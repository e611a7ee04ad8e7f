import type { Argument, Command, Option } from 'commander';

/** Where the values of an option or argument come from, when they are not a fixed list. */
type ValueSource = 'profile' | 'state-key' | 'help' | 'file';

/** One option as completion sees it. */
interface CompletionOption {
  flags: string[];
  /** Whether the next word is its value. */
  value: boolean;
  choices?: string[];
  /** The choices are accepted in any case (a parser's, not commander's exact ones): they complete in any case too. */
  anyCase?: boolean;
  source?: ValueSource;
}

/**
 * The command tree, reduced to what completion needs: plain data, so that the built CLI can
 * answer a TAB from a JSON file without loading a single command module (see complete-fast.ts).
 */
export interface CompletionNode {
  names: string[];
  hidden?: boolean;
  options: CompletionOption[];
  /** Values of the positional arguments, in order. */
  args: Array<{ choices?: string[]; source?: ValueSource }>;
  subs: CompletionNode[];
}

/** Extra sources of values that are not a fixed list. */
export interface CompletionSources {
  profiles(): Promise<string[]> | string[];
  stateKeys(): Promise<string[]> | string[];
  helpTopics: string[];
}

const FILE_OPTIONS = /^--(file|batch|out|out-dir|report|resume-from-report|input|ready-file|summary-json)$/;
const OPTION_SOURCES: Record<string, ValueSource> = { '--profile': 'profile', '--state-key': 'state-key' };
const ARG_SOURCES: Record<string, ValueSource> = { key: 'state-key', profile: 'profile', topic: 'help' };

/** The fixed values an option accepts: commander's choices (exact), or a parser's (any case). */
function optionChoices(option: Option): { choices: readonly string[]; anyCase: boolean } | undefined {
  const parser = (option as unknown as { parseArg?: { choices?: readonly string[] } }).parseArg;
  // A parser with choices replaced commander's exact check (-o's, --status's): any case.
  if (parser?.choices) return { choices: parser.choices, anyCase: true };
  return option.argChoices ? { choices: option.argChoices, anyCase: false } : undefined;
}

/** The completion tree of a program whose commands are all loaded. */
export function completionTree(cmd: Command): CompletionNode {
  const options = cmd.options
    .filter((o) => !o.hidden)
    .map((o): CompletionOption => {
      const flags = [o.long, o.short].filter((f): f is string => Boolean(f));
      const choices = optionChoices(o);
      const source = OPTION_SOURCES[o.long ?? ''] ?? (FILE_OPTIONS.test(o.long ?? '') ? 'file' : undefined);
      return {
        flags,
        value: o.required || o.optional,
        ...(choices ? { choices: [...choices.choices], ...(choices.anyCase ? { anyCase: true } : {}) } : {}),
        ...(source ? { source } : {}),
      };
    });
  const args = (cmd.registeredArguments as readonly Argument[]).map((a) => {
    const source = ARG_SOURCES[a.name()];
    return { ...(a.argChoices ? { choices: [...a.argChoices] } : {}), ...(source ? { source } : {}) };
  });
  const hidden = (cmd as unknown as { _hidden?: boolean })._hidden;
  return {
    names: [cmd.name(), ...cmd.aliases()],
    ...(hidden ? { hidden } : {}),
    options,
    args,
    subs: cmd.commands.map(completionTree),
  };
}

/**
 * Candidates for the last word of a partial command line (`words` excludes `cnv` itself).
 * An empty answer lets the shell fall back to file names.
 */
export async function complete(root: CompletionNode, words: string[], sources: CompletionSources): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const path = [root];
  let node = root;
  let pending: CompletionOption | undefined;
  let positional = 0;
  const optionsInScope = () => path.flatMap((n) => n.options);
  for (const word of words.slice(0, -1)) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionsInScope().find((o) => o.flags.includes(word.split('=')[0]));
      if (option?.value && !word.includes('=')) pending = option;
      continue;
    }
    const sub = node.subs.find((c) => c.names.includes(word));
    if (sub && positional === 0) {
      node = sub;
      path.push(sub);
    } else positional++;
  }
  const startsWith = (values: readonly string[]) => [...new Set(values)].filter((v) => v.startsWith(current));
  const valuesOf = async (spec: { choices?: string[]; source?: ValueSource }): Promise<string[]> => {
    if (spec.choices) return spec.choices;
    if (spec.source === 'profile') return sources.profiles();
    if (spec.source === 'state-key') return sources.stateKeys();
    if (spec.source === 'help')
      return [...sources.helpTopics, ...root.subs.filter((s) => !s.hidden).map((s) => s.names[0])];
    return [];
  };
  if (pending)
    return pending.anyCase ? inTypedCase(pending.choices ?? [], current) : startsWith(await valuesOf(pending));
  if (current.startsWith('-')) return startsWith(optionsInScope().flatMap((o) => o.flags));
  const subs = node.subs.filter((c) => !c.hidden);
  if (subs.length > 0 && positional === 0) return startsWith(subs.map((c) => c.names[0]));
  const arg = node.args[positional];
  return arg ? startsWith(await valuesOf(arg)) : [];
}

/**
 * Values accepted in any case, completed in any case: `su` gives `subscribed` (a shell keeps only
 * candidates that start with what was typed, so each comes back in the case the word began in:
 * lower, upper, or its own letters then the value's rest in lower case when mixed; as the value
 * is when nothing was typed).
 */
function inTypedCase(values: readonly string[], current: string): string[] {
  const typed = current.toLowerCase();
  const lower = current !== '' && current === typed;
  const upper = current !== '' && current === current.toUpperCase() && !lower;
  const found = values
    .filter((v) => v.toLowerCase().startsWith(typed))
    .map((v) =>
      v.startsWith(current)
        ? v
        : lower
          ? v.toLowerCase()
          : upper
            ? v.toUpperCase()
            : current + v.slice(current.length).toLowerCase(),
    );
  return [...new Set(found)];
}
