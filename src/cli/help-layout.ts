import type { Command, Help, Option } from 'commander';
import { HELP_TOPICS } from './help-topics.js';

/** What a command's help holds besides commander's own parts (set by CnvCommand and the program). */
export interface HelpParts {
  /** The texts given with addHelpText('after', ...): notes, then `Examples:`. */
  notes: string[];
  /** The JSON output, derived from the command module's `output` when the page is laid out. */
  json?: () => string;
  /** The global flags that mean something to this command (long names); all when undefined. */
  globals?: readonly string[];
  /** The top-level help's examples. */
  examples?: readonly string[];
}

const LEARN_MORE = [
  'Use `cnv <command> <subcommand> --help` for more information about a command.',
  'Exit codes (`cnv help exit-codes`): 0 ok, 2 usage, 3 rejected, 4 auth, 5 not found, 6 partial, 7 transient, 8 local file, 9 differences (--exit-code).',
  'Environment variables: `cnv help environment`. Every help page in one file: docs/commands.md.',
];

/**
 * Help laid out as gh lays it out: what the command is (its description and notes), USAGE,
 * ARGUMENTS, its own FLAGS and COMMANDS, EXAMPLES and the JSON OUTPUT, then the INHERITED FLAGS
 * (the global ones, last: they are the same on every page) and LEARN MORE. A group's `help`
 * command is not listed (`cnv help <command>` is). `helper.showGlobalOptions` false (the
 * generated reference) leaves the inherited flags out.
 */
export function formatHelp(cmd: Command, helper: Help, parts: HelpParts): string {
  const root = cmd.parent === null;
  const width = helper.helpWidth ?? 80;
  const { prose, examples } = splitNotes(parts.notes);

  const own = helper.visibleOptions(cmd).filter((o) => root || o.long !== '--help');
  const inherited =
    helper.showGlobalOptions && !root
      ? // --version is the program's, not a command's.
        [
          ...helper
            .visibleGlobalOptions(cmd)
            .filter((o) => o.long !== '--version' && (!parts.globals || parts.globals.includes(o.long ?? ''))),
          ...helpOptionOf(cmd),
        ]
      : [];
  const subcommands = helper.visibleCommands(cmd).filter((c) => root || c.name() !== 'help');
  const topics = root ? Object.entries(HELP_TOPICS) : [];
  const topLevel = parts.examples?.map((e) => `  $ ${e}`) ?? [];
  // One column for the terms of every section, as wide as the widest term shown.
  const terms = [
    ...[...own, ...inherited].map((o) => helper.optionTerm(o)),
    ...helper.visibleArguments(cmd).map((a) => helper.argumentTerm(a)),
    ...subcommands.map((c) => c.name()),
    ...topics.map(([name]) => name),
  ];
  const termWidth = Math.max(0, ...terms.map((t) => helper.displayWidth(t)));
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  const optionItem = (o: Option) => item(helper.optionTerm(o), helper.optionDescription(o));
  const section = (title: string, lines: string[]) => (lines.length === 0 ? [] : [title, ...lines, '']);

  return [
    helper.boxWrap(helper.commandDescription(cmd), width),
    '',
    ...(prose.length ? [...prose, ''] : []),
    ...section('USAGE', [`  ${usage(cmd)}`]),
    ...section(
      'ALIASES',
      cmd.aliases().map((a) => `  ${[...pathOf(cmd).slice(0, -1), a].join(' ')}`),
    ),
    ...section(
      'ARGUMENTS',
      helper.visibleArguments(cmd).map((a) => item(helper.argumentTerm(a), helper.argumentDescription(a))),
    ),
    ...section(
      'COMMANDS',
      subcommands.map((c) => item(c.name(), helper.subcommandDescription(c))),
    ),
    ...section(
      'HELP TOPICS (cnv help <topic>)',
      topics.map(([name, t]) => item(name, t.summary)),
    ),
    ...section(root ? 'FLAGS (every command takes them, before or after its name)' : 'FLAGS', own.map(optionItem)),
    ...section('EXAMPLES', [...topLevel, ...examples]),
    ...section(
      'JSON OUTPUT (piped, --json, and what -q selects from)',
      parts.json ? [helper.boxWrap(parts.json() + '.', width - 2).replace(/^/gm, '  ')] : [],
    ),
    ...section('INHERITED FLAGS', inherited.map(optionItem)),
    ...section(
      'LEARN MORE',
      LEARN_MORE.map((l) => helper.boxWrap(l, width - 2).replace(/^/gm, '  ')),
    ),
  ].join('\n');
}

/** The help option as an inherited flag, as gh lists it. */
function helpOptionOf(cmd: Command): Option[] {
  const help = (cmd as unknown as { _getHelpOption(): Option | null })._getHelpOption();
  return help && !help.hidden ? [help] : [];
}

/** `cnv campaigns list`, by canonical names. */
function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names;
}

/** `cnv api <method> <path> [flags]`, `cnv campaigns <command> [flags]`. */
function usage(cmd: Command): string {
  const args = cmd.registeredArguments.map((a) => {
    const name = a.name() + (a.variadic ? '...' : '');
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const hasSubcommands = cmd.commands.some((c) => !(c as unknown as { _hidden: boolean })._hidden);
  return [...pathOf(cmd), ...(hasSubcommands ? ['<command>'] : []), ...args, '[flags]'].join(' ');
}

/**
 * A command's notes: the prose before its first `Examples:` heading (shown under the
 * description), and the examples with what follows them. A `Name:` heading line reads as the
 * other sections' titles do (`EXAMPLES`).
 */
function splitNotes(notes: string[]): { prose: string[]; examples: string[] } {
  const prose: string[] = [];
  const examples: string[] = [];
  for (const note of notes) {
    const lines = note.replace(/^\n+/, '').replace(/\s+$/, '').split('\n');
    const at = lines.findIndex((l) => /^Examples?:$/.test(l));
    const heading = (l: string) => (/^[A-Z][a-z]+( [a-z]+)*:$/.test(l) ? l.slice(0, -1).toUpperCase() : l);
    prose.push(...(at < 0 ? lines : lines.slice(0, at)).map(heading));
    if (at >= 0) examples.push(...lines.slice(at + 1).map(heading));
  }
  while (prose.at(-1) === '') prose.pop();
  return { prose, examples };
}
