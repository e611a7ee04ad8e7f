// `npm run demo` and `prepare` (npm ci, npm link): build only when dist/ was not built from the
// sources as they are (scripts/build-inputs.mjs), so the README's `npm ci && npm run demo` builds
// once (before: prepare built, demo built again, and npm link a third time).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsHash, STAMP } from './build-inputs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, STAMP);
const built =
  existsSync(stamp) && existsSync(join(root, 'dist/bundle/cnv.cjs')) ? readFileSync(stamp, 'utf8').trim() : '';
if (built !== '' && built === buildInputsHash(root)) {
  process.stderr.write('dist/ is built from these sources: no build needed\n');
} else {
  const res = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = res.status ?? 1;
}
