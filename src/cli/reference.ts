import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { createContext } from './create-context.js';
import { HELP_TOPICS } from './help-topics.js';
import { buildProgram, loadAllCommands } from './program.js';

const HELP_WIDTH = 100;

/** docs/commands.md: every command's help, generated from the program itself (`npm run docs`). */
export async function renderReference(): Promise<string> {
  let captured = '';
  const stdout = new PassThrough();
  stdout.on('data', (c) => (captured += c));
  const ctx = createContext({
    io: { stdin: new PassThrough(), stdout, stderr: new PassThrough(), stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false },
    env: {},
  });
  const program = buildProgram(ctx, () => {});
  await loadAllCommands(ctx, program);
  const helpOf = (cmd: Command): string => {
    captured = '';
    cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: HELP_WIDTH, showGlobalOptions: false });
    cmd.outputHelp();
    return captured.trimEnd();
  };

  const sections: string[] = [
    '# Command reference',
    '',
    'Generated from the program by `npm run docs`; a test fails when this file is out of date.',
    'The global options (listed under `cnv`) are accepted by every command, before or after its name.',
    '',
    '## cnv',
    '',
    '```text',
    helpOf(program),
    '```',
  ];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
      const name = [...path, sub.name()];
      sections.push('', `${'#'.repeat(Math.min(name.length + 1, 4))} cnv ${name.join(' ')}`, '', '```text', helpOf(sub), '```');
      walk(sub, name);
    }
  };
  walk(program, []);
  sections.push('', '## Help topics');
  for (const [name, topic] of Object.entries(HELP_TOPICS)) {
    sections.push('', `### cnv help ${name}`, '', '```text', topic.text.trimEnd(), '```');
  }
  return sections.join('\n') + '\n';
}
