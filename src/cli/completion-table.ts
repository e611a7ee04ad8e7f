import { PassThrough } from 'node:stream';
import { createContext } from './create-context.js';
import { completionTree, type CompletionNode } from './complete.js';
import { buildProgram, loadAllCommands } from './program.js';

/** The completion tree of the whole program, as the build writes it to dist/bundle/completion.json. */
export async function completionTable(): Promise<CompletionNode> {
  const io = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const ctx = createContext({ io, env: {} });
  const program = buildProgram(ctx, () => {});
  await loadAllCommands(ctx, program);
  return completionTree(program);
}
