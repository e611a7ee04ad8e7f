// Whether the run can be set up at all: can pip install the pinned packages here? Asked before
// anything is built, so a machine whose pip index has no Meltano (no Python Package Index, no
// wheel folder in PIP_FIND_LINKS) skips the run in a second or two instead of failing it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './proc.mjs';
import { isCached, PLUGINS, pythonVersion } from './venvs.mjs';

/**
 * pip's arguments for the probe of one package: the package alone (`--no-deps`), downloaded to a
 * throw-away folder from pip's configured index and find-links (pip.conf, PIP_INDEX_URL,
 * PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS: whatever the install would use). No retries and a short
 * timeout: an unreachable index would otherwise be retried five times with back-off per package.
 * `-vv` makes pip say which index it could not reach.
 */
export const probeArgs = (pkg, dest) => [
  '-m',
  'pip',
  'download',
  '--no-deps',
  '--dest',
  dest,
  '--retries',
  '0',
  '--timeout',
  '15',
  '-vv',
  pkg,
];

/** pip's own "Looking in ..." lines (credentials already masked by pip), and the indexes it could not reach. */
function locations(output) {
  const indexes = /^Looking in indexes: (.*)$/m.exec(output)?.[1].split(', ') ?? ['https://pypi.org/simple'];
  const links = /^Looking in links: (.*)$/m.exec(output)?.[1];
  const unreached = new Map();
  for (const m of output.matchAll(/^Could not fetch URL (\S+?): (.*) - skipping$/gm)) {
    const why = /\[Errno -?\d+\] ([^'")]+)/.exec(m[2])?.[1] ?? (/timed out/i.test(m[2]) ? 'timed out' : 'not reached');
    const at = indexes.find((i) => m[1].startsWith(i.replace(/\/?$/, '/')));
    if (at) unreached.set(at, why.trim());
  }
  const named = indexes.map((i) => (unreached.has(i) ? `${i} (not reached: ${unreached.get(i)})` : i));
  return `${indexes.length > 1 ? 'indexes' : 'index'} ${named.join(', ')}${links ? `; find-links ${links}` : ''}`;
}

/** Why `pkg` is not installable, from pip's output: the locations it tried, and the package pip missed when another. */
export function notInstallable(pkg, { stdout, stderr }) {
  const output = `${stdout}\n${stderr}`;
  const missed = /No matching distribution found for (\S+)/.exec(output)?.[1];
  const error = output
    .match(/^ERROR: .*$/gm)
    ?.at(-1)
    ?.slice('ERROR: '.length, 200);
  const detail = missed ? (missed === pkg ? '' : `; pip: no ${missed}`) : error ? `; pip: ${error}` : '';
  return `${pkg} is not installable from pip's index (${locations(output)}${detail})`;
}

/** Runs python3 with `args`; resolves { code, stdout, stderr } (code 127 when python3 cannot be run). */
const python3 = (args) =>
  run('python3', args, {
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    allowFail: true,
  }).catch((e) => ({ code: 127, stdout: '', stderr: e.message }));

/**
 * Finds the first pinned package pip cannot install: resolves undefined when every one can (or its
 * venv is whole in the cache: `cached(name)`), else the one-line reason. `python(args)` runs
 * python3 (injected by the tests); `plugins` is venvs.mjs's PLUGINS.
 */
export async function firstNotInstallable(plugins, { cached, python = python3 }) {
  for (const [name, { packages }] of Object.entries(plugins)) {
    if (cached(name)) continue;
    for (const pkg of packages) {
      const dest = mkdtempSync(join(tmpdir(), 'cnv-interop-probe-'));
      try {
        const r = await python(probeArgs(pkg, dest));
        if (r.code === 0) continue;
        if (r.code === 127 || /No module named pip/.test(r.stderr))
          return `${pkg} is not installable: python3 -m pip cannot run here (${r.stderr.trim().split('\n').at(-1)})`;
        return notInstallable(pkg, r);
      } finally {
        rmSync(dest, { recursive: true, force: true });
      }
    }
  }
  return undefined;
}

/**
 * Whether interop (or the bench's Meltano suite) can go on: `reason` is undefined when pip can
 * install every pinned package (or its venv is whole in the cache), else the one-line reason.
 * Python's version is part of the cache key.
 */
export async function skipReason() {
  const python = await pythonVersion().catch(() => undefined);
  const reason = await firstNotInstallable(PLUGINS, {
    cached: (name) => python !== undefined && isCached(name, python),
  });
  return { python, reason };
}
