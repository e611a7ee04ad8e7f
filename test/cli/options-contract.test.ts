import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS, isGroup } from '../../src/cli/registry.js';
import { DEFAULT_GLOBALS } from '../../src/cli/global-options.js';
import { validateOptions } from '../../src/cmdutil/validate-options.js';
import type { Entry, LeafEntry } from '../../src/cmdutil/contract.js';
import { UsageError } from '../../src/errors.js';
import { cnvInProcess, tempConfigDir } from '../helpers/cli.js';

// Every command declares its options once, as a table of flags (src/cmdutil/flags.ts): commander's
// options and the zod schema `run` gets its options through both come from it, and the rules
// across flags live in that schema (superRefine).

function leaves(entries: Entry[], prefix: string[] = []): Array<[string, LeafEntry]> {
  return entries.flatMap((e) =>
    isGroup(e) ? leaves(e.children, [...prefix, e.name]) : [[[...prefix, e.name].join(' '), e] as [string, LeafEntry]],
  );
}
const load = async (name: string) =>
  (
    await leaves(COMMANDS)
      .find(([n]) => n === name)![1]
      .load()
  ).options;
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('command options contract', () => {
  it.each(leaves(COMMANDS))(
    '%s: commander reads exactly the flags of its table, and their defaults pass their schemas',
    async (_name, entry) => {
      const { options } = await entry.load();
      const cmd = new Command('x');
      options.addTo(cmd);
      expect(cmd.options.map((o) => o.attributeName())).toEqual(Object.keys(options.flags));
      // The defaults commander fills in (--port 4010, --no-state's true) pass the flags' own schemas.
      const shape = z.object(Object.fromEntries(Object.entries(options.flags).map(([key, f]) => [key, f.schema])));
      expect(shape.safeParse(cmd.opts()).success).toBe(true);
      // The schema reads the flags and the globals it names, nothing else.
      expect(Object.keys((options.schema as unknown as z.ZodObject).shape).sort()).toEqual(
        [...Object.keys(options.flags), ...options.globals].sort(),
      );
    },
  );

  it('a value of the wrong type is a usage error naming the flag (kebab-case)', async () => {
    const options = await load('export contacts');
    const thrown = refusal(() => validateOptions(options, { ...DEFAULT_GLOBALS, state: true, maxPages: 'ten' }));
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).exitCode).toBe(2);
    expect((thrown as UsageError).message).toMatch(/^--max-pages: /);
  });

  it.each([
    ['export contacts', { state: false, stateKey: 'k' }, '--state-key and --no-state do not go together', 'usage'],
    [
      'export contacts',
      { state: true, bom: true },
      '--bom applies to CSV output only (-o csv or --out FILE.csv)',
      'usage',
    ],
    [
      'export contacts',
      { state: true, summaryJson: '-' },
      "--summary-json -: stdout already carries this run's data",
      'conflicting_options',
    ],
    ['export contacts', { state: true, format: 'table' }, '--format table: an export writes csv or ndjson', 'usage'],
    [
      'export email-events',
      { state: true, type: ['EMAIL_OPEN', 'EMAIL_SEND'], maxRows: 5 },
      '--max-rows applies to one type at a time; --type EMAIL_OPEN,EMAIL_SEND runs every type to its end (or use --out-dir)',
      'usage',
    ],
    [
      'export custom-events',
      { state: true, until: '2025-01-01T00:00:00.000Z' },
      "--until goes with --since (it is part of the first run's window)",
      'usage',
    ],
    ['contacts upsert', { coerce: true, concurrency: 4 }, '--concurrency: goes only with --file', 'usage'],
    [
      'contacts upsert',
      { file: 'x.csv', maxRows: 1, resumeFromReport: 'r.csv' },
      '--max-rows: not with --resume-from-report (a resume reads the whole file, so that the rows done before stay in the report)',
      'conflicting_options',
    ],
    [
      'audience add',
      { batch: 'x.csv', email: 'a@example.com' },
      '--batch: the contacts come from the file; drop --email',
      'usage',
    ],
    ['campaigns list', { summaryJson: '-' }, '--summary-json -: stdout carries the rows', 'conflicting_options'],
    ['api', { slurp: true }, '--slurp goes with --paginate', 'usage'],
    ['fields relate', { source: 'CONTACT:a:A', target: 'CONTACT:a:B' }, '--target: the two keys must differ', 'usage'],
  ])('%s %j: the schema refuses it, with the message and code run gave before', async (name, values, message, code) => {
    const options = await load(name);
    const err = refusal(() => validateOptions(options, { ...DEFAULT_GLOBALS, ...values })) as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(message);
    expect(err.code).toBe(code);
    expect(err.exitCode).toBe(2);
  });

  it('an invalid option value exits 2 naming the flag, before anything is sent', async () => {
    const env = { CNV_CONFIG_DIR: tempConfigDir(), CNV_BASE_URL: 'http://127.0.0.1:9', CNV_API_KEY: 'k-options-test' };
    const res = await cnvInProcess(['export', 'contacts', '--no-state', '-o', 'csv', '--null-as', 'a\nb'], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--null-as: must not hold a line break/);
    expect(res.stdout).toBe('');
  });

  it('a cross-flag rule refuses the command before it runs: no key is needed to hear it', async () => {
    const res = await cnvInProcess(['export', 'contacts', '--no-state', '--state-key', 'k'], {
      env: { CNV_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toBe('error: usage: --state-key and --no-state do not go together\n');
  });
});
