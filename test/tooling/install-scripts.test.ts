import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// npm 11 warns on `npm ci` about every dependency whose install script package.json's
// `allowScripts` does not cover (npm 12 will not run them): each one in the lockfile is decided
// there, so `npm ci` stays quiet and a new dependency with a script is a decision, not a warning.
const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};

describe('install scripts', () => {
  it("every locked package with an install script is named in package.json's allowScripts (by name, or name@version)", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path, p]) => ({
        name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
        version: p.version,
      }));
    expect(withScripts.map((p) => p.name)).toContain('esbuild');
    const allowed = pkg.allowScripts ?? {};
    for (const { name, version } of withScripts) {
      expect(allowed[name] ?? allowed[`${name}@${version}`], `${name}@${version}`).toBeTypeOf('boolean');
    }
    // esbuild's script checks its platform binary; the bundle (npm run build) needs it.
    expect(allowed.esbuild).toBe(true);
  });
});
