import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { CnvCommand } from '../../src/cli/cnv-command.js';
import { formatHelp, HELP_PAGE_LINES, type CnvHelp } from '../../src/cli/help-layout.js';
import { helpPages } from '../../src/cli/reference.js';
import { cnv } from '../helpers/cli.js';

// Every command's `--help` is a screen, as gh's are (issue 43): at most HELP_PAGE_LINES lines at
// 80 columns (what `cnv <command> --help | wc -l` counts), each flag on one line, one line of LEARN
// MORE; what a page leaves out (the notes, the whole flag descriptions, a long JSON OUTPUT) is on
// the command's whole page, `cnv help <command>` (and docs/commands.md), which LEARN MORE names.
// The layout does it (src/cli/help-layout.ts), so a command or flag added later is held here too.
const pages = (await helpPages({ width: 80, whole: false, inherited: true })).filter((p) => p.path.length > 0);
const wholes = new Map(
  (await helpPages({ width: 80, whole: true, inherited: true })).map((p) => [p.path.join(' '), p.text]),
);

const section = (page: string, title: string): string[] => {
  const lines = page.split('\n');
  const at = lines.findIndex((l) => l === title || l.startsWith(`${title} (`));
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l === '');
  return lines.slice(at + 1, end < 0 ? undefined : end);
};
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('every command’s --help is a screen', () => {
  it('covers every command, groups and leaves', () => {
    expect(pages.length).toBeGreaterThan(40);
    expect(pages.map((p) => p.path.join(' '))).toEqual(expect.arrayContaining(['contacts', 'contacts sync', 'api']));
  });

  it.each(pages.map((p) => [p.path.join(' '), p.text] as const))(
    'cnv %s --help: at most 60 lines, a flag a line, one line of LEARN MORE',
    (path, page) => {
      expect(page.split('\n').length, page).toBeLessThanOrEqual(HELP_PAGE_LINES);
      for (const line of section(page, 'FLAGS')) expect(line, `${path}: a flag's line`).toMatch(/^ {2}-/);
      // An example is as long as it is (as gh's): every other line fits 80 columns.
      const lines = page.split('\n');
      const from = lines.indexOf('EXAMPLES');
      const to = lines.findIndex((l, i) => i > from && /^[A-Z][A-Z ]+( \(|$)/.test(l));
      const examples = new Set(from < 0 ? [] : lines.slice(from, to));
      for (const line of page.split('\n'))
        if (!examples.has(line)) expect(line.length, `${path}: ${line}`).toBeLessThanOrEqual(80);
      expect(section(page, 'LEARN MORE')).toHaveLength(1);
    },
  );

  it.each(pages.map((p) => [p.path.join(' '), p.text] as const))(
    'cnv %s: nothing is lost, the whole page holds what the page shows and names it when it holds more',
    (path, page) => {
      const whole = wholes.get(path)!;
      const learnMore = section(page, 'LEARN MORE')[0];
      // Every line of the page but its flags (cut to a line) and LEARN MORE is on the whole page too.
      const flags = new Set(section(page, 'FLAGS'));
      for (const line of page.split('\n'))
        if (!flags.has(line) && line !== learnMore) expect(flat(whole), path).toContain(flat(line));
      // Each flag's whole description is on the whole page.
      for (const line of flags) {
        const term = line.trim().split(/ {2,}/)[0];
        expect(section(whole, 'FLAGS').join('\n'), `${path}: ${term}`).toContain(term);
      }
      const shows = flat(page.slice(0, page.lastIndexOf('\nLEARN MORE')));
      const holds = flat(whole.slice(0, whole.lastIndexOf('\nLEARN MORE')));
      if (holds !== shows) expect(learnMore, path).toContain(`\`cnv help ${path}\``);
    },
  );

  it('a page that would be longer gives up its JSON OUTPUT, then names its inherited flags in one line', () => {
    const program = new CnvCommand('cnv').option('--profile <name>', 'profile').option('--json', 'JSON');
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'])
      program.option(`--global-${name}`, `global ${name}`);
    const cmd = program.command('many') as CnvCommand;
    for (let i = 0; i < 45; i++)
      cmd.addOption(new Option(`--flag-${i} <value>`, `a flag whose description is long: ${'word '.repeat(20)}`));
    cmd.addHelpText('after', `\nWhat it does, at length.\n\nExamples:\n  $ cnv many --flag-1 x`);
    cmd.helpParts.json = () => `${'{member, '.repeat(60)}}`;
    const layout = (c: Command, whole: boolean) => {
      const helper = c.createHelp() as CnvHelp;
      Object.assign(helper, { helpWidth: 80, showGlobalOptions: true, whole });
      return formatHelp(c, helper, (c as CnvCommand).helpParts);
    };
    const page = layout(cmd, false).trimEnd();
    expect(page.split('\n').length, page).toBeLessThanOrEqual(HELP_PAGE_LINES);
    expect(page).not.toContain('JSON OUTPUT');
    expect(section(page, 'INHERITED FLAGS')).toEqual([
      '  every global flag: -o/--format, -q/--query, --dry-run... (see cnv --help)',
    ]);
    expect(section(page, 'LEARN MORE')).toEqual(['  The whole page: `cnv help many`; docs/commands.md']);
    // Cut at a clause or a word, and marked; the whole page keeps every word.
    expect(section(page, 'FLAGS')[0]).toMatch(/^ {2}--flag-0 <value> +a flag whose description is long: word.*\.\.\.$/);
    const whole = layout(cmd, true);
    expect(whole).toContain('What it does, at length.');
    expect(flat(whole)).toContain(`a flag whose description is long: ${'word '.repeat(20).trim()}`);
    expect(whole).toContain('JSON OUTPUT');
  });

  it('the built binary prints the longest page in 60 lines to a pipe, and `cnv help` prints its whole page', async () => {
    const longest = pages.reduce((a, b) => (b.text.split('\n').length > a.text.split('\n').length ? b : a));
    const res = await cnv([...longest.path, '--help']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trimEnd()).toBe(longest.text);
    const whole = await cnv(['help', ...longest.path]);
    expect(whole.stdout.trimEnd()).toBe(wholes.get(longest.path.join(' ')));
  });
});
