import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

  it('on the dist/ the build just made, build-if-stale builds nothing (the suite ran `npm run build`)', async () => {
    expect(readFileSync(join(ROOT, STAMP), 'utf8').trim()).toBe(buildInputsHash(ROOT));
    const res = await execa('node', ['scripts/build-if-stale.mjs'], { cwd: ROOT, reject: false, timeout: 20_000 });
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toBe('dist/ is built from these sources: no build needed');
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
