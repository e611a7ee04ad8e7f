import type { Argument, Command, Option } from 'commander';

/** Where the values of an option or argument come from, when they are not a fixed list. */
type ValueSource = 'profile' | 'state-key' | 'help' | 'file';

/** One option as completion sees it. */
interface CompletionOption {
  flags: string[];
  /** Whether the next word is its value. */
  value: boolean;
  choices?: string[];
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

/** The fixed values an option accepts (commander choices, or case-insensitive choices). */
function optionChoices(option: Option): readonly string[] | undefined {
  const parser = (option as unknown as { parseArg?: { choices?: readonly string[] } }).parseArg;
  return option.argChoices ?? parser?.choices;
}

/** The completion tree of a program whose commands are all loaded. */
export function completionTree(cmd: Command): CompletionNode {
  const options = cmd.options.filter((o) => !o.hidden).map((o): CompletionOption => {
    const flags = [o.long, o.short].filter((f): f is string => Boolean(f));
    const choices = optionChoices(o);
    const source = OPTION_SOURCES[o.long ?? ''] ?? (FILE_OPTIONS.test(o.long ?? '') ? 'file' : undefined);
    return { flags, value: o.required || o.optional, ...(choices ? { choices: [...choices] } : {}), ...(source ? { source } : {}) };
  });
  const args = (cmd.registeredArguments as readonly Argument[]).map((a) => {
    const source = ARG_SOURCES[a.name()];
    return { ...(a.argChoices ? { choices: [...a.argChoices] } : {}), ...(source ? { source } : {}) };
  });
  const hidden = (cmd as unknown as { _hidden?: boolean })._hidden;
  return { names: [cmd.name(), ...cmd.aliases()], ...(hidden ? { hidden } : {}), options, args, subs: cmd.commands.map(completionTree) };
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
    if (spec.source === 'help') return [...sources.helpTopics, ...root.subs.filter((s) => !s.hidden).map((s) => s.names[0])];
    return [];
  };
  if (pending) return startsWith(await valuesOf(pending));
  if (current.startsWith('-')) return startsWith(optionsInScope().flatMap((o) => o.flags));
  const subs = node.subs.filter((c) => !c.hidden);
  if (subs.length > 0 && positional === 0) return startsWith(subs.map((c) => c.names[0]));
  const arg = node.args[positional];
  return arg ? startsWith(await valuesOf(arg)) : [];
}
