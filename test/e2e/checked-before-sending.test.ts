import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cnv } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// What is wrong locally is said before anything is sent, with the exit code of its kind: a
// field key no field has (exit 2, the nearest key), an output file in a directory that does
// not exist (exit 8, naming the directory).

const fx = useEmulator();
beforeEach(() => fx.resetStats());
const sent = async (route: string) => ((await fx.stats()) as { byRoute: Record<string, number> }).byRoute[route] ?? 0;

describe('checked before sending (binary)', () => {
  it("contacts upsert --field, -F and --set keys are checked against the field definitions, as a file's columns are", async () => {
    const field = await cnv(['contacts', 'upsert', '--email', 'ada@example.com', '--field', 'ctiy=Oslo'], {
      env: fx.env,
    });
    expect(field.exitCode).toBe(2);
    expect(field.stderr).toMatch(
      /^error: unknown_field: --field "ctiy": no CONTACT field has this key \(nearest: city\)$/m,
    );
    const typed = await cnv(['contacts', 'upsert', '--email', 'ada@example.com', '-F', 'Frist name=Ada'], {
      env: fx.env,
    });
    expect(typed.stderr).toMatch(
      /^error: unknown_field: -F\/--typed-field "Frist name": no CONTACT field has this key \(nearest: firstName\)$/m,
    );
    const set = await cnv(['contacts', 'upsert', '--email', 'ada@example.com', '--set', 'ctiy=Oslo'], { env: fx.env });
    expect(set.exitCode).toBe(2);
    expect(set.stderr).toMatch(
      /^error: unknown_field: --set "ctiy": is close to the field city: fields go with --field KEY=VALUE$/m,
    );
    // A file's column of the same name, for comparison: the same nearest key.
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-keys-')), 'c.csv');
    writeFileSync(file, 'email,fields.ctiy\nada@example.com,Oslo\n');
    expect((await cnv(['contacts', 'upsert', '--file', file], { env: fx.env })).stderr).toMatch(
      /"fields\.ctiy" \(nearest: fields\.city\)/,
    );
    expect(await sent('POST /v2/contacts')).toBe(0);
    const ok = await cnv(
      ['contacts', 'upsert', '--email', 'ada@example.com', '--field', 'city=Oslo', '--set', 'preserveExisting=true'],
      { env: fx.env },
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
  });

  it('--out into a directory that does not exist is exit 8 naming the directory, before any request', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cnv-out-'));
    for (const extra of [[], ['--no-state'], ['--json']]) {
      const out = join(base, 'missing', 'contacts.csv');
      const res = await cnv(['export', 'contacts', '--out', out, ...extra], { env: fx.env });
      expect(res.exitCode, extra.join(' ')).toBe(8);
      expect(res.stderr).toMatch(
        new RegExp(
          `^error: file_system_error: cannot write the output file ${out}: the directory ${join(base, 'missing')} does not exist \\(ENOENT\\)\\nhint: create it first \\(mkdir -p ${join(base, 'missing')}\\), or give another path$`,
          'm',
        ),
      );
      expect(existsSync(join(base, 'missing'))).toBe(false);
    }
    const file = join(base, 'a-file');
    writeFileSync(file, '');
    const under = await cnv(['export', 'email-events', '--type', 'all', '--out', join(file, 'e.ndjson')], {
      env: fx.env,
    });
    expect(under.exitCode).toBe(8);
    expect(under.stderr).toMatch(
      /cannot write the output file .*a-file\/e\.ndjson: .*a-file is not a directory \(ENOTDIR\)/,
    );
    expect(((await fx.stats()) as { total: number }).total).toBe(0);
  });

  it('an output path that is a directory (--summary-json, --report, --out) is refused before anything is sent (issue 38: --summary-json DIR was exit 1 "internal: EISDIR" after the rows were sent)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cnv-out-dir-'));
    const input = join(base, 'people.csv');
    writeFileSync(input, 'email,firstName\ndir.target@example.com,Ada\n');
    const cases: Array<[string[], RegExp]> = [
      [
        ['contacts', 'upsert', '--file', input, '--summary-json', base],
        /^error: summary_unwritable: --summary-json .*: is a directory, not a file$/m,
      ],
      [
        ['contacts', 'sync', '--file', input, '--summary-json', base],
        /^error: summary_unwritable: --summary-json .*: is a directory, not a file$/m,
      ],
      [
        ['audience', 'add', 'c1000000-0000-4000-8000-000000000002', '--batch', input, '--summary-json', base],
        /^error: summary_unwritable: --summary-json .*: is a directory, not a file$/m,
      ],
      [
        ['export', 'contacts', '--out', join(base, 'out.ndjson'), '--no-state', '--summary-json', base],
        /^error: summary_unwritable: --summary-json .*: is a directory, not a file$/m,
      ],
      [['contacts', 'upsert', '--file', input, '--report', base], /^error: report_unwritable: --report /m],
      [['export', 'contacts', '--out', base, '--no-state'], /^error: usage: --out .*: not a regular file$/m],
    ];
    for (const [args, message] of cases) {
      const res = await cnv(args, {
        env: { ...fx.env, CNV_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'cnv-out-dir-config-')) },
      });
      expect(res.stderr, args.join(' ')).toMatch(message);
      expect(res.exitCode, args.join(' ')).toBe(2);
    }
    // Nothing sent, nothing exported (the field list may be read to resolve the columns first).
    const { byRoute } = (await fx.stats()) as { byRoute: Record<string, number> };
    expect(Object.keys(byRoute).filter((route) => !route.startsWith('GET /v2/fields'))).toEqual([]);
  });

  it('doctor with the demo key that has no permissions: what it checked, and what it did not, never "ok" for that', async () => {
    const res = await cnv(['doctor', '-q', "[?status!='ok'].[check, status]"], {
      env: { ...fx.env, CNV_API_KEY: fx.emulator.keys.limited },
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual([
      ['endpoint: create field', 'inferred'],
      ['endpoint: batch add to audience', 'inferred'],
      ['permission: audience edit', 'warn'],
      ['permission: field creation and custom-object edit', 'warn'],
      ['permission: edit records', 'warn'],
    ]);
  });
});
