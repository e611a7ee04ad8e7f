import type { Command } from 'commander';
import type { CommandInput } from '../../cli/registry.js';
import type { Context } from '../../context.js';
import { maskKey, redactUrl } from '../../http/redact.js';
import type { CommandResult } from '../../io/render.js';

export function configure(cmd: Command): void {
  cmd.addHelpText('after', `
Examples:
  $ cnv config list
  $ cnv config list --json`);
}

export async function run(ctx: Context, _input: CommandInput): Promise<CommandResult> {
  const store = await ctx.config();
  const current = store.currentProfile();
  const rows = Object.entries(store.profiles()).map(([name, p]) => ({
    profile: name,
    current: name === current,
    baseUrl: p.baseUrl === undefined ? null : redactUrl(p.baseUrl),
    apiKey: p.apiKey ? maskKey(p.apiKey) : null,
  }));
  return { kind: 'list', rows, columns: ['profile', 'current', 'baseUrl', 'apiKey'] };
}
