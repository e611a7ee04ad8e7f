// npm run interop asks pip first whether Meltano and the targets can be installed here
// (scripts/interop/probe.mjs): where they cannot, one line and exit 0, or exit 1 with
// CNV_INTEROP=require; a venv whole in the cache needs no pip. pip is a fake here (no network).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { firstNotInstallable, probeArgs } from '../../scripts/interop/probe.mjs';
// @ts-expect-error: a plain .mjs script of the repo, without types
import { PLUGINS } from '../../scripts/interop/venvs.mjs';
import { tempConfigDir } from '../helpers/cli.js';

const RUN = resolve(import.meta.dirname, '../../scripts/interop/run.mjs');

/** What pip 23 prints for a package no index has, the Python Package Index unreachable (`-vv`, trimmed). */
const PIP_OUT = [
  'Looking in indexes: https://pypi.org/simple, file:///srv/pypi/simple',
  'Looking in links: /srv/wheels',
  "Could not fetch URL https://pypi.org/simple/meltano/: connection error: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/meltano/ (Caused by NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')) - skipping",
].join('\n');
const pipErr = (pkg: string) =>
  `ERROR: Could not find a version that satisfies the requirement ${pkg} (from versions: none)\nERROR: No matching distribution found for ${pkg}\n`;
const REASON =
  "meltano==4.2.2 is not installable from pip's index (indexes https://pypi.org/simple (not reached: Name or service not known), file:///srv/pypi/simple; find-links /srv/wheels)";

type Result = { code: number; stdout: string; stderr: string };
/** A python3 that answers each probe with `answer(pkg)`, and the packages it was asked for. */
function fakePython(answer: (pkg: string) => Result) {
  const asked: string[][] = [];
  const python = async (args: string[]) => {
    asked.push(args);
    return answer(args.at(-1)!);
  };
  return { asked, python };
}
const ok = { code: 0, stdout: 'Saved ./x.whl\n', stderr: '' };

describe('the interop probe: which pinned package pip cannot install', () => {
  it('the first one pip cannot find is named with the indexes and find-links pip tried; no package after it is asked', async () => {
    const { asked, python } = fakePython((pkg) => ({ code: 1, stdout: PIP_OUT, stderr: pipErr(pkg) }));
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python })).toBe(REASON);
    expect(asked).toHaveLength(1);
    // One package, no dependencies, no retries, a short timeout: an unreachable index costs one try.
    expect(asked[0]).toEqual(probeArgs('meltano==4.2.2', asked[0][asked[0].indexOf('--dest') + 1]));
    expect(asked[0]).toEqual(expect.arrayContaining(['--no-deps', '--retries', '0', '--timeout', '15']));
  });

  it('every package found: installable, each pinned package asked once', async () => {
    const { asked, python } = fakePython(() => ok);
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python })).toBeUndefined();
    expect(asked.map((a) => a.at(-1))).toEqual([
      'meltano==4.2.2',
      'meltanolabs-target-postgres==0.8.1',
      'target-jsonl==0.1.2',
      'singer-python==5.1.0',
    ]);
  });

  it('a venv whole in the cache counts as installable: its packages are not asked', async () => {
    const { asked, python } = fakePython((pkg) =>
      pkg.startsWith('meltano==') ? { code: 1, stdout: PIP_OUT, stderr: pipErr(pkg) } : ok,
    );
    expect(await firstNotInstallable(PLUGINS, { cached: () => true, python })).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await firstNotInstallable(PLUGINS, { cached: (n: string) => n === 'meltano', python })).toBeUndefined();
    expect(asked.map((a) => a.at(-1))).not.toContain('meltano==4.2.2');
  });

  it('a package pip finds but cannot get (a build dependency missing, another error) is named, with what pip missed', async () => {
    const { python } = fakePython((pkg) =>
      pkg.startsWith('target-jsonl')
        ? { code: 1, stdout: 'Looking in links: /srv/wheels\n', stderr: pipErr('setuptools>=40.8.0') }
        : ok,
    );
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python })).toBe(
      "target-jsonl==0.1.2 is not installable from pip's index (index https://pypi.org/simple; find-links /srv/wheels; pip: no setuptools>=40.8.0)",
    );
    const broken = fakePython(() => ({
      code: 2,
      stdout: '',
      stderr: 'ERROR: THESE PACKAGES DO NOT MATCH THE HASHES\n',
    }));
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python: broken.python })).toBe(
      "meltano==4.2.2 is not installable from pip's index (index https://pypi.org/simple; pip: THESE PACKAGES DO NOT MATCH THE HASHES)",
    );
  });

  it('no python3, or no pip in it: not installable either', async () => {
    const none = fakePython(() => ({ code: 127, stdout: '', stderr: 'cannot run python3: spawn python3 ENOENT' }));
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python: none.python })).toBe(
      'meltano==4.2.2 is not installable: python3 -m pip cannot run here (cannot run python3: spawn python3 ENOENT)',
    );
    const noPip = fakePython(() => ({ code: 1, stdout: '', stderr: '/usr/bin/python3: No module named pip\n' }));
    expect(await firstNotInstallable(PLUGINS, { cached: () => false, python: noPip.python })).toBe(
      'meltano==4.2.2 is not installable: python3 -m pip cannot run here (/usr/bin/python3: No module named pip)',
    );
  });
});

describe('npm run interop where pip cannot install Meltano (a python3 on PATH that finds nothing)', () => {
  /** A PATH whose python3 answers the version question and fails every pip download as pip does. */
  function fakePath(): string {
    const bin = join(tempConfigDir(), 'bin');
    mkdirSync(bin);
    const script = [
      '#!/bin/sh',
      'if [ "$1" = "-c" ]; then echo 3.11.7; exit 0; fi',
      'for last; do :; done',
      `cat <<'EOF'\n${PIP_OUT}\nEOF`,
      'echo "ERROR: Could not find a version that satisfies the requirement $last (from versions: none)" >&2',
      'echo "ERROR: No matching distribution found for $last" >&2',
      'exit 1',
    ].join('\n');
    writeFileSync(join(bin, 'python3'), `${script}\n`);
    chmodSync(join(bin, 'python3'), 0o755);
    return `${bin}:${process.env.PATH}`;
  }

  const interop = (env: Record<string, string>) =>
    execa(process.execPath, [RUN], {
      reject: false,
      env: { PATH: fakePath(), CNV_INTEROP_CACHE: tempConfigDir(), HOME: tempConfigDir(), ...env },
      extendEnv: false,
      timeout: 20_000,
    });

  it('one line on stdout, `interop: skipped: ...` naming meltano and the indexes, and exit 0', async () => {
    const r = await interop({});
    expect(r.stdout).toBe(`interop: skipped: ${REASON}`);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });

  it('CNV_INTEROP=require: the same reason is a failure, exit 1; another value is refused', async () => {
    const r = await interop({ CNV_INTEROP: 'require' });
    expect(r.stderr).toBe(`interop: set-up failed: ${REASON}, and CNV_INTEROP=require`);
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(1);
    const bad = await interop({ CNV_INTEROP: 'yes' });
    expect(bad.stderr).toBe('interop: set-up failed: CNV_INTEROP=yes: the one value it takes is "require"');
    expect(bad.exitCode).toBe(1);
  });
});
