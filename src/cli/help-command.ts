import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { HELP_TOPICS } from './help-topics.js';
import type { CnvCommand } from './cnv-command.js';
import type { CnvHelp } from './help-layout.js';
import { didYouMean } from '../cmdutil/suggest.js';

/**
 * `cnv help [topic | command...]`: a topic, or a command's whole help page: its `--help` (a
 * screen) with the notes, every flag's whole description and the JSON OUTPUT (help-layout.ts).
 */
export function addHelpCommand(program: Command, ctx: Context, loadLeaf: (cmd: Command) => Promise<void>): void {
  program.helpCommand(false);
  const topics = Object.entries(HELP_TOPICS)
    .map(([name, t]) => `  ${name.padEnd(12)} ${t.summary}`)
    .join('\n');
  const help = program
    .command('help [topic...]')
    .description("Show a command's whole help page, or a topic (exit-codes, environment)")
    .addHelpText('after', `\nTopics:\n${topics}\n\nExamples:\n  $ cnv help exit-codes\n  $ cnv help contacts upsert`)
    .action(async (path: string[]) => {
      const topic = path.length === 1 ? HELP_TOPICS[path[0]] : undefined;
      if (topic) {
        ctx.io.stdout.write(topic.text);
        return;
      }
      let cmd = program;
      for (const name of path) {
        const next = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!next) {
          // Suggest among canonical names (an alias is its command) and, at the top, the topics.
          const names = [...cmd.commands.map((c) => c.name()), ...(cmd === program ? Object.keys(HELP_TOPICS) : [])];
          const guess = didYouMean(name, names);
          throw new UsageError(
            `no command or help topic "${path.join(' ')}"`,
            `${guess ? `${guess} ` : ''}(topics: ${Object.keys(HELP_TOPICS).join(', ')}; commands: cnv --help)`,
            'unknown_topic',
          );
        }
        cmd = next;
        await loadLeaf(cmd);
      }
      // outputHelp, not helpInformation: the notes and examples are added help text.
      const whole: Partial<CnvHelp> = { ...cmd.configureHelp(), whole: true };
      cmd.configureHelp(whole);
      cmd.outputHelp();
    });
  (help as CnvCommand).helpParts.globals = [];
}
