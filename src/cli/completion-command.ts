import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { complete, completionTree } from './complete.js';
import { completionSources } from './completion-sources.js';
import { configDir } from '../config/paths.js';
import { COMPLETION_SCRIPTS } from './completion-scripts.js';
import type { CnvCommand } from './cnv-command.js';

/** `cnv completion <shell>` and the hidden `cnv __complete -- <words>` the scripts call. */
export function addCompletionCommands(program: Command, ctx: Context, loadAll: () => Promise<void>): void {
  const completion = program
    .command('completion')
    .description('Print a shell completion script (bash, zsh, fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(COMPLETION_SCRIPTS)))
    .addHelpText(
      'after',
      `
Examples:
  $ cnv completion bash > ~/.local/share/bash-completion/completions/cnv
  $ cnv completion zsh > "\${fpath[1]}/_cnv"
  $ source <(cnv completion bash)               # or this line in ~/.bashrc
  $ cnv completion fish > ~/.config/fish/completions/cnv.fish`,
    )
    .action((shell: keyof typeof COMPLETION_SCRIPTS) => {
      ctx.io.stdout.write(COMPLETION_SCRIPTS[shell]);
    });
  (completion as CnvCommand).helpParts.globals = [];

  program
    .command('__complete [words...]', { hidden: true })
    .helpOption(false)
    .allowUnknownOption()
    .action(async (words: string[] = []) => {
      await loadAll();
      const candidates = await complete(
        completionTree(program),
        words.length ? words : [''],
        completionSources(configDir(ctx.env)),
      );
      ctx.io.stdout.write(candidates.map((c) => c + '\n').join(''));
    });
}
