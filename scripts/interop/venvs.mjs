// The Python side: one virtual environment per plugin (as Meltano makes them), built once per
// set of versions and kept in a cache, so a second run starts at once.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { run, say, SetupError } from './proc.mjs';

/** What each venv holds (pinned: the cache key is these lines). singer-python 5.1.0: newer ones make Decimals target-jsonl cannot write. */
export const PLUGINS = {
  meltano: { packages: ['meltano==4.2.2'], bin: 'meltano' },
  'target-postgres': { packages: ['meltanolabs-target-postgres==0.8.1'], bin: 'target-postgres' },
  'target-jsonl': { packages: ['target-jsonl==0.1.2', 'singer-python==5.1.0'], bin: 'target-jsonl' },
};

const cacheDir = () =>
  process.env.CNV_INTEROP_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cnv-interop');

/** The Python version of python3 (part of each venv's cache key); rejects with a SetupError when python3 cannot run. */
export async function pythonVersion() {
  const { stdout } = await run('python3', ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])']).catch((e) => {
    throw new SetupError(`python3 is needed to build Meltano's virtual environments: ${e.message}`);
  });
  return stdout.trim();
}

/** Where the venv of `name` lives for this Python: a directory named by a hash of the version and the pinned packages. */
function venvPaths(name, python) {
  const { packages, bin } = PLUGINS[name];
  const key = createHash('sha256')
    .update(`${python}\n${packages.join('\n')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir(), `${name}-${key}`);
  return { dir, exe: join(dir, 'bin', bin) };
}

/** Whether the venv of `name` is whole in the cache (its marker, written last, and its executable). */
export function isCached(name, python) {
  const { dir, exe } = venvPaths(name, python);
  return existsSync(join(dir, '.complete')) && existsSync(exe);
}

/** Builds (or finds in the cache) the venv of `name`; resolves to the path of its main executable. */
async function venv(name, python) {
  const { packages } = PLUGINS[name];
  const { dir, exe } = venvPaths(name, python);
  if (isCached(name, python)) return { exe, cached: true, dir };
  mkdirSync(cacheDir(), { recursive: true });
  // Built in place (a venv's scripts name their interpreter by path, so it cannot be moved);
  // the marker, written last, says it is whole: an interrupted build is started over.
  rmSync(dir, { recursive: true, force: true });
  say(`building the ${name} venv: pip install ${packages.join(' ')}`);
  await run('python3', ['-m', 'venv', dir]);
  try {
    await run(join(dir, 'bin', 'pip'), ['install', '--quiet', ...packages], {
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new SetupError(`cannot install ${packages.join(' ')} into a venv: ${e.message}`);
  }
  writeFileSync(join(dir, '.complete'), `${packages.join('\n')}\n`);
  return { exe, cached: false, dir };
}

/** The three venvs, built in parallel when missing: { meltano, 'target-postgres', 'target-jsonl' } → { exe, cached }. */
export async function ensureVenvs(python) {
  const names = Object.keys(PLUGINS);
  const built = await Promise.all(names.map((n) => venv(n, python)));
  return Object.fromEntries(names.map((n, i) => [n, built[i]]));
}
