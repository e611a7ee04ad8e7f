// The Python side: one virtual environment per plugin (as Meltano makes them), built once per
// set of versions and kept in a cache, so a second run starts at once.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { run, say, SetupError } from './proc.mjs';

/** What each venv holds (pinned: the cache key is these lines). singer-python 5.1.0: newer ones make Decimals target-jsonl cannot write. */
export const PLUGINS = {
  meltano: { packages: ['meltano==4.2.2'], bin: 'meltano' },
  'target-postgres': { packages: ['meltanolabs-target-postgres==0.8.1'], bin: 'target-postgres' },
  'target-jsonl': { packages: ['target-jsonl==0.1.2', 'singer-python==5.1.0'], bin: 'target-jsonl' },
};

export const cacheDir = () =>
  process.env.CNV_INTEROP_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cnv-interop');

/** pip's environment: the configured index, plus `../shared/wheels` beside the clone when it is there. */
function pipEnv(repo) {
  const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  const wheels = resolve(repo, '..', 'shared', 'wheels');
  if (!existsSync(wheels)) return { env };
  env.PIP_FIND_LINKS = [process.env.PIP_FIND_LINKS, wheels].filter(Boolean).join(' ');
  // The wheels are there for a machine without the Python Package Index, where each lookup of it
  // would be retried five times with back-off.
  env.PIP_RETRIES ??= '0';
  return { env, wheels };
}

async function pythonVersion() {
  const { stdout } = await run('python3', ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])']).catch((e) => {
    throw new SetupError(`python3 is needed to build Meltano's virtual environments: ${e.message}`);
  });
  return stdout.trim();
}

/** Builds (or finds in the cache) the venv of `name`; resolves to the path of its main executable. */
async function venv(name, repo, python) {
  const { packages, bin } = PLUGINS[name];
  const key = createHash('sha256')
    .update(`${python}\n${packages.join('\n')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir(), `${name}-${key}`);
  const exe = join(dir, 'bin', bin);
  if (existsSync(join(dir, '.complete')) && existsSync(exe)) return { exe, cached: true, dir };
  mkdirSync(cacheDir(), { recursive: true });
  // Built in place (a venv's scripts name their interpreter by path, so it cannot be moved);
  // the marker, written last, says it is whole: an interrupted build is started over.
  rmSync(dir, { recursive: true, force: true });
  const { env, wheels } = pipEnv(repo);
  say(`building the ${name} venv: pip install ${packages.join(' ')}${wheels ? ` (also from ${wheels})` : ''}`);
  await run('python3', ['-m', 'venv', dir]);
  try {
    await run(join(dir, 'bin', 'pip'), ['install', '--quiet', ...packages], { env });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new SetupError(
      `cannot install ${packages.join(' ')} into a venv (is the package index reachable, or ../shared/wheels there?): ${e.message}`,
    );
  }
  writeFileSync(join(dir, '.complete'), `${packages.join('\n')}\n`);
  return { exe, cached: false, dir };
}

/** The three venvs, built in parallel when missing: { meltano, 'target-postgres', 'target-jsonl' } → { exe, cached }. */
export async function ensureVenvs(repo) {
  const python = await pythonVersion();
  const names = Object.keys(PLUGINS);
  const built = await Promise.all(names.map((n) => venv(n, repo, python)));
  return Object.fromEntries(names.map((n, i) => [n, built[i]]));
}
