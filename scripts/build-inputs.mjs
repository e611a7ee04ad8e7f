// What dist/ is built from, as one digest: `npm run build` (scripts/bundle.mjs) records it in
// dist/.build-inputs, and scripts/build-if-stale.mjs builds only when it differs, so that
// `npm ci && npm run demo` (and `npm link`) build once.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The files the build reads: the sources, the bundler, and what decides the packages and compiler options. */
function inputFiles(root) {
  const files = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, 'src'));
  for (const name of ['scripts/bundle.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'])
    if (existsSync(join(root, name))) files.push(join(root, name));
  return files.map((f) => relative(root, f)).sort();
}

/** The digest of every input file's path and bytes under `root`. */
export function buildInputsHash(root) {
  const hash = createHash('sha256');
  for (const file of inputFiles(root)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Where a build records the digest of its inputs. */
export const STAMP = 'dist/.build-inputs';
