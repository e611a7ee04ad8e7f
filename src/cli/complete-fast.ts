import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { configDir } from '../config/paths.js';
import { complete, type CompletionNode } from './complete.js';
import { completionSources } from './completion-sources.js';

/**
 * `cnv __complete -- WORDS` in the built CLI: answered from the completion table written at build
 * time beside the bundle (dist/bundle/completion.json), without loading commander or any command.
 * Resolves to false when there is no table (an unbundled build), and the program answers instead.
 */
export async function completeFast(words: string[], env: NodeJS.ProcessEnv, stdout: Writable): Promise<boolean> {
  let tree: CompletionNode;
  try {
    tree = JSON.parse(readFileSync(new URL('./completion.json', import.meta.url), 'utf8')) as CompletionNode;
  } catch {
    return false;
  }
  const given = words[0] === '--' ? words.slice(1) : words;
  const candidates = await complete(tree, given.length ? given : [''], completionSources(configDir(env)));
  await new Promise<void>((resolve) => stdout.write(candidates.map((c) => c + '\n').join(''), () => resolve()));
  return true;
}
