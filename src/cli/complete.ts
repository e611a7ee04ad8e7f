import type { Command, Option } from 'commander';

/** Extra sources of values for options whose values are not a fixed list. */
export interface CompletionSources {
  profiles(): Promise<string[]>;
}

const FILE_OPTIONS = /^--(file|batch|out|report|resume-from-report)$/;

function optionsOf(cmd: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) all.push(...c.options);
  return all;
}

function findOption(cmd: Command, word: string): Option | undefined {
  const flag = word.split('=')[0];
  return optionsOf(cmd).find((o) => o.long === flag || o.short === flag);
}

/** The fixed values an option accepts (commander choices, or case-insensitive choices). */
export function optionChoices(option: Option): readonly string[] | undefined {
  const parser = (option as unknown as { parseArg?: { choices?: readonly string[] } }).parseArg;
  return option.argChoices ?? parser?.choices;
}

/**
 * Candidates for the last word of a partial command line (`words` excludes `cnv` itself).
 * An empty answer lets the shell fall back to file names. Every command must be loaded.
 */
export async function complete(program: Command, words: string[], sources: CompletionSources): Promise<string[]> {
  const current = words.at(-1) ?? '';
  let cmd = program;
  let pending: Option | undefined;
  for (const word of words.slice(0, -1)) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = findOption(cmd, word);
      if (option && (option.required || option.optional) && !word.includes('=')) pending = option;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) cmd = sub;
  }
  const startsWith = (values: readonly string[]) => values.filter((v) => v.startsWith(current));
  if (pending) {
    if (pending.long === '--profile') return startsWith(await sources.profiles());
    if (FILE_OPTIONS.test(pending.long ?? '')) return [];
    return startsWith(optionChoices(pending) ?? []);
  }
  if (current.startsWith('-')) {
    const flags = optionsOf(cmd).flatMap((o) => (o.hidden ? [] : [o.long, o.short])).filter((f): f is string => Boolean(f));
    return startsWith([...new Set(flags)]);
  }
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  return startsWith(subs);
}
