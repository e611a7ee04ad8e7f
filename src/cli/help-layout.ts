import type { Command, Help, Option } from 'commander';
import { briefOf } from '../cmdutil/flag-brief.js';
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

/** commander's Help with cnv's one setting: `whole`, the page in full (`cnv help <command>`, docs/commands.md). */
export type CnvHelp = Help & { whole?: boolean };

/** The most lines a command's `--help` takes (test/cli/help-pages.test.ts holds every page to it). */
export const HELP_PAGE_LINES = 60;

/** The widest flag column of a `--help` page: a longer flag pushes its own line's description right. */
const TERM_COLUMN = 24;

const LEARN_MORE = [
  'Use `cnv <command> <subcommand> --help` for more information about a command, `cnv help <command>` for all of it.',
  'Exit codes (`cnv help exit-codes`): 0 ok, 2 usage, 3 rejected, 4 auth, 5 not found, 6 partial, 7 transient, 8 local file, 9 differences (--exit-code).',
  'Environment variables: `cnv help environment`. Every help page in one file: docs/commands.md.',
];

/**
 * Help laid out as gh lays it out. A command's `--help` is a screen (at most HELP_PAGE_LINES
 * lines at 80 columns): what it is (its summary), USAGE, ARGUMENTS, its own FLAGS one line each
 * (a flag's `brief`, or its description cut at a clause), COMMANDS, EXAMPLES, the JSON OUTPUT
 * when the page has room for it, the INHERITED FLAGS by name (`cnv --help` tells each)
 * and one line of LEARN MORE naming the whole page. The whole page (`helper.whole`: `cnv help
 * <command>`, docs/commands.md) adds the notes (the prose before the examples), every flag's
 * whole description and the JSON OUTPUT. The top-level help is the same either way: it lists the
 * commands, topics and global flags in full. A group's `help` command is not listed (`cnv help
 * <command>` is). `helper.showGlobalOptions` false (the generated reference) leaves the inherited
 * flags out.
 */
export function formatHelp(cmd: Command, helper: CnvHelp, parts: HelpParts): string {
  const root = cmd.parent === null;
  const whole = root || helper.whole === true;
  const width = helper.helpWidth ?? 80;
  const { prose, examples } = splitNotes(parts.notes);

  const own = helper.visibleOptions(cmd).filter((o) => root || o.long !== '--help');
  // --version is the program's, not a command's; --help is known to whoever reads this page.
  const inherited =
    helper.showGlobalOptions && !root
      ? helper
          .visibleGlobalOptions(cmd)
          .filter((o) => o.long !== '--version' && (!parts.globals || parts.globals.includes(o.long ?? '')))
      : [];
  const subcommands = helper.visibleCommands(cmd).filter((c) => root || c.name() !== 'help');
  const topics = root ? Object.entries(HELP_TOPICS) : [];
  const topLevel = parts.examples?.map((e) => `  $ ${e}`) ?? [];
  // One column for the terms of every section, as wide as the widest term shown (on a page, at most TERM_COLUMN).
  const terms = [
    ...own.map((o) => helper.optionTerm(o)),
    ...helper.visibleArguments(cmd).map((a) => helper.argumentTerm(a)),
    ...subcommands.map((c) => c.name()),
    ...topics.map(([name]) => name),
  ];
  const widest = Math.max(0, ...terms.map((t) => helper.displayWidth(t)));
  const termWidth = whole ? widest : Math.min(widest, TERM_COLUMN);
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  let cut = false; // a flag's line says less than the whole page
  const optionItem = (o: Option) => {
    if (whole) return item(helper.optionTerm(o), helper.optionDescription(o));
    const brief = briefOf(o);
    const shown = oneLine(helper.optionTerm(o), brief ?? o.description, termWidth, width, helper);
    // The whole page says more of it: the whole description, its choices or its default.
    cut ||= shown.cut || (brief ?? o.description) !== helper.optionDescription(o);
    return shown.text;
  };
  const indented = (text: string) => helper.boxWrap(text, width - 2).replace(/^/gm, '  ');

  const json = parts.json
    ? section('JSON OUTPUT (piped, --json, and what -q selects from)', [indented(parts.json() + '.')])
    : [];
  const head = [
    helper.boxWrap(helper.commandDescription(cmd), width),
    '',
    ...(whole && prose.length ? [...prose, ''] : []),
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
  ];
  const inheritedAs = (list: string) => section('INHERITED FLAGS', inherited.length ? [indented(list)] : []);
  const tail = inheritedAs(inheritedList(inherited));
  if (whole)
    return [
      ...head,
      ...json,
      ...tail,
      ...section('LEARN MORE', (root ? LEARN_MORE : LEARN_MORE.slice(1)).map(indented)),
    ].join('\n');
  const tails = [tail, ...(parts.globals ? [] : [inheritedAs(ALL_GLOBALS)])];
  return fitPage(cmd, parts.notes, { head, json, tails }, prose.length > 0 || cut, indented);
}

/**
 * The page: the first of these that fits with its one line of LEARN MORE (2 with its title): with
 * the JSON OUTPUT, without it, then with the inherited flags in one line (`tails`, when they are
 * all of them). LEARN MORE names the whole page when this one `saysLess` or left the JSON out.
 */
function fitPage(
  cmd: Command,
  notes: string[],
  blocks: { head: string[]; json: string[]; tails: string[][] },
  saysLess: boolean,
  indented: (text: string) => string,
): string {
  const { head, json, tails } = blocks;
  const pages = [[...head, ...json, ...tails[0]], ...tails.map((t) => [...head, ...t])];
  const shown = pages.find((p) => lineCount(p) + 2 <= HELP_PAGE_LINES) ?? pages[pages.length - 1];
  const jsonLeftOut = json.length > 0 && shown !== pages[0];
  const doc = /\bdocs\/[\w-]+\.md\b/.exec(notes.join('\n'))?.[0] ?? 'docs/commands.md';
  const path = pathOf(cmd);
  const more =
    saysLess || jsonLeftOut
      ? `The whole page: \`cnv help ${path.slice(1).join(' ')}\`; ${doc}`
      : cmd.commands.length
        ? `Each command: \`${path.join(' ')} <command> --help\`; ${doc}`
        : `Exit codes: \`cnv help exit-codes\`; ${doc}`;
  return [...shown, ...section('LEARN MORE', [indented(more)])].join('\n');
}

/** A titled section of a page, and the blank line after it; nothing when it has no lines. */
function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : [title, ...lines, ''];
}

/** The inherited flags of a command that takes every global flag, on a page with no room to name them. */
const ALL_GLOBALS = 'every global flag: -o/--format, -q/--query, --dry-run... (see cnv --help)';

/** What a description cut to one line ends with: the whole one is in `cnv help <command>`. */
const CUT = '...';

/**
 * A term and its description on one line of `width` columns: the description cut, when it does
 * not fit, at the last clause (`, `, `; `, ` (`, `: `) that does, else at a word, and marked.
 */
function oneLine(
  term: string,
  description: string,
  termWidth: number,
  width: number,
  helper: Help,
): { text: string; cut: boolean } {
  const room = width - 2 - Math.max(termWidth, helper.displayWidth(term)) - 2;
  const padded = `  ${term.padEnd(termWidth)}  `;
  if (helper.displayWidth(description) <= room) return { text: padded + description, cut: false };
  const limit = room - CUT.length;
  const clauses = [...description.matchAll(/[,;:]? |\s\(/g)].map((m) => m.index).filter((i) => i <= limit);
  const clause = clauses.filter((i) => i >= limit / 2).at(-1);
  const at = clause ?? description.lastIndexOf(' ', limit);
  return { text: padded + description.slice(0, at > 0 ? at : limit).replace(/[\s,;:(]+$/, '') + CUT, cut: true };
}

/** The inherited flags by name (`-q/--query`), and where they are told. */
function inheritedList(options: Option[]): string {
  const names = options.map((o) => (o.short ? `${o.short}/${o.long}` : (o.long ?? '')));
  return `${names.join(', ')} (see cnv --help)`;
}

/** Lines of a page given as blocks that may hold line breaks. */
function lineCount(blocks: string[]): number {
  return blocks.join('\n').split('\n').length;
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
