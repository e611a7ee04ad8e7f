import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, isGroup } from '../../src/cli/registry.js';
import { addGlobalOptions } from '../../src/cli/global-options.js';
import type { Entry, LeafEntry } from '../../src/cmdutil/contract.js';

// Every message and hint names flags of the command that prints it. The export's messages are
// printed by the export commands; sync's (src/sync, and the export's when they reach sync:
// src/sync/snapshot.ts rewrites their hints) by `contacts sync`. The case that made this
// test: a refused cursor in `contacts sync` said "run again with --full", a flag sync lacks.

const SRC = resolve(import.meta.dirname, '../../src');

function leaves(entries: Entry[], prefix: string[] = []): Array<[string, LeafEntry]> {
  return entries.flatMap((e) =>
    isGroup(e) ? leaves(e.children, [...prefix, e.name]) : [[[...prefix, e.name].join(' '), e] as [string, LeafEntry]],
  );
}

/** The long flags a command accepts: its own (both spellings of a negatable one) and the global ones. */
async function flagsOf(names: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const name of names) {
    const cmd = new Command('x');
    addGlobalOptions(cmd);
    (
      await leaves(COMMANDS)
        .find(([n]) => n === name)![1]
        .load()
    ).options.addTo(cmd);
    for (const o of cmd.options) {
      if (!o.long) continue;
      out.add(o.long);
      if (o.negate) out.add(o.long.replace(/^--no-/, '--'));
    }
  }
  return out;
}

/**
 * The `--flags` named in the string literals of a folder's sources (comments left out, and the
 * whole command lines a message quotes, such as \`cnv export state reset KEY --yes\`: those are
 * another command's).
 */
function flagsNamedIn(files: string[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const file of files) {
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/\s\/\/ .*$/gm, '');
    for (const literal of code.match(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"/g) ?? []) {
      const own = literal.replace(/\\?`cnv [^`\\]*\\?`/g, '');
      for (const flag of own.match(/(?<![\w-])--[a-z][a-z-]*[a-z]/g) ?? []) named.set(flag, file);
    }
  }
  return named;
}

const filesIn = (dir: string) =>
  readdirSync(join(SRC, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(SRC, dir, f));

describe('hints name flags of the command that prints them', () => {
  it('src/sync: every flag is one of `contacts sync`', async () => {
    const flags = await flagsOf(['contacts sync']);
    const strays = [...flagsNamedIn(filesIn('sync'))].filter(([flag]) => !flags.has(flag));
    expect(strays).toEqual([]);
  });

  it('src/exporter: every flag is one of an export command', async () => {
    const flags = await flagsOf(['export contacts', 'export custom-events', 'export email-events']);
    const strays = [...flagsNamedIn(filesIn('exporter'))].filter(([flag]) => !flags.has(flag));
    expect(strays).toEqual([]);
  });
});
