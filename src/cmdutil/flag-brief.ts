import type { Option } from 'commander';

/**
 * The one line a command's `--help` shows for a flag whose description is longer (the whole
 * description is in `cnv help <command>` and docs/commands.md). Kept beside commander's Option,
 * not in it: commander has no place for a second description. No zod here: `cnv --help` reads it.
 */
const briefs = new WeakMap<Option, string>();

export function setBrief(option: Option, brief: string): void {
  briefs.set(option, brief);
}

export function briefOf(option: Option): string | undefined {
  return briefs.get(option);
}
