import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildInputsHash, STAMP } from '../../scripts/build-inputs.mjs';

// Issue 47: `npm ci && npm run demo` built three times (prepare, demo's own `npm run build`, and
// `npm link`'s prepare: 78 s, then 33 s more). prepare and demo now build only when dist/ was not
// built from the sources as they are (scripts/build-if-stale.mjs).
const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('the README commands build once', () => {
  it('prepare (npm ci, npm link) and demo build only a stale dist/; README says `npm ci && npm run demo`', () => {
    expect(pkg.scripts.prepare).toBe('node scripts/build-if-stale.mjs');
    expect(pkg.scripts.demo).toBe('node scripts/build-if-stale.mjs && node scripts/demo.mjs');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('npm ci && npm run demo');
  });

  it('build-if-stale: a dist/ built from these sources is left as it is; any change builds once, and records it', async () => {
    // A copy of the scripts over a small tree, whose `build` only says it ran (the real one takes 30 s).
    const root = mkdtempSync(join(tmpdir(), 'cnv-build-once-'));
    cpSync(join(ROOT, 'src/lib'), join(root, 'src/lib'), { recursive: true });
    for (const f of ['tsconfig.json', 'package-lock.json', 'scripts/build-inputs.mjs', 'scripts/build-if-stale.mjs'])
      cpSync(join(ROOT, f), join(root, f));
    writeFileSync(join(root, 'scripts/bundle.mjs'), '');
    writeFileSync(
      join(root, 'scripts/fake-build.mjs'),
      "import { appendFileSync, writeFileSync } from 'node:fs';\n" +
        "import { buildInputsHash, STAMP } from './build-inputs.mjs';\n" +
        "appendFileSync('builds', 'x');\nwriteFileSync(STAMP, buildInputsHash('.'));\n",
    );
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { build: 'node scripts/fake-build.mjs' } }));
    mkdirSync(join(root, 'dist/bundle'), { recursive: true });
    writeFileSync(join(root, 'dist/bundle/cnv.cjs'), '');
    const ifStale = () => execa('node', ['scripts/build-if-stale.mjs'], { cwd: root, reject: false, timeout: 20_000 });
    const builds = () => (existsSync(join(root, 'builds')) ? readFileSync(join(root, 'builds'), 'utf8').length : 0);
    writeFileSync(join(root, STAMP), buildInputsHash(root));
    const current = await ifStale();
    expect([current.exitCode, current.stderr, builds()]).toEqual([
      0,
      'dist/ is built from these sources: no build needed',
      0,
    ]);
    writeFileSync(join(root, 'src/lib/once.ts'), `${readFileSync(join(root, 'src/lib/once.ts'), 'utf8')}\n`);
    expect((await ifStale()).exitCode).toBe(0);
    expect(builds()).toBe(1);
    // The build recorded what it was made from: the next one is skipped.
    expect((await ifStale()).stderr).toBe('dist/ is built from these sources: no build needed');
    expect(builds()).toBe(1);
  });

  it('the digest changes with any source, the bundler, the compiler options or the lock file', () => {
    const root = mkdtempSync(join(tmpdir(), 'cnv-build-inputs-'));
    cpSync(join(ROOT, 'src/lib'), join(root, 'src/lib'), { recursive: true });
    for (const f of ['tsconfig.json', 'package.json', 'package-lock.json', 'scripts/bundle.mjs'])
      cpSync(join(ROOT, f), join(root, f));
    const seen = new Set([buildInputsHash(root)]);
    for (const f of ['src/lib/once.ts', 'tsconfig.json', 'package-lock.json', 'scripts/bundle.mjs']) {
      writeFileSync(join(root, f), `${readFileSync(join(root, f), 'utf8')}\n`);
      seen.add(buildInputsHash(root));
    }
    writeFileSync(join(root, 'src/lib/new.ts'), '');
    seen.add(buildInputsHash(root));
    expect(seen.size).toBe(6);
  });
});
