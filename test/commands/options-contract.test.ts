import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS, isGroup } from '../../src/cli/registry.js';
import { validateOptions } from '../../src/cli/validate.js';
import type { Entry, LeafEntry } from '../../src/commands/contract.js';
import { UsageError } from '../../src/errors.js';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';

// Every command declares its options twice: to commander (configure) and as a zod schema
// (options), which the loader validates before run. The two must name the same options.

function leaves(entries: Entry[], prefix: string[] = []): Array<[string, LeafEntry]> {
  return entries.flatMap((e) => (isGroup(e) ? leaves(e.children, [...prefix, e.name]) : [[[...prefix, e.name].join(' '), e] as [string, LeafEntry]]));
}

describe('command options contract', () => {
  it.each(leaves(COMMANDS))('%s exports an options schema naming exactly its commander options', async (_name, entry) => {
    const mod = await entry.load();
    const cmd = new Command('x');
    mod.configure(cmd);
    const declared = cmd.options.map((o) => o.attributeName()).sort();
    expect(mod.options).toBeInstanceOf(z.ZodObject);
    expect(Object.keys((mod.options as z.ZodObject).shape).sort()).toEqual([...new Set(declared)].sort());
    // The defaults commander fills in (--port 4010, --no-state's true) pass the schema.
    expect(mod.options.safeParse(cmd.opts()).success).toBe(true);
  });

  it('a value of the wrong type is a usage error naming the flag (kebab-case)', async () => {
    const [, exportContacts] = leaves(COMMANDS).find(([name]) => name === 'export contacts')!;
    const { options } = await exportContacts.load();
    const err = (() => {
      try {
        validateOptions(options, { state: true, maxPages: 'ten' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toMatch(/^--max-pages: /);
  });

  it('an invalid option value exits 2 naming the flag, before anything is sent', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir(), CNV_BASE_URL: 'http://127.0.0.1:9', CNV_API_KEY: 'k-options-test' };
    const res = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'csv', '--null-as', 'a\nb'], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--null-as: must not hold a line break/);
    expect(res.stdout).toBe('');
  });
});
