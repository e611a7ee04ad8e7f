import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the built bundle holds (npm test builds first): conf inside, in the code cache with the
// rest, whole: its own ajv and semver, no stub in their place (docs/startup.md).
const bundle = readFileSync(resolve(import.meta.dirname, '../../dist/bundle/cnv.cjs'), 'latin1');

describe('dist/bundle/cnv.cjs', () => {
  it('holds conf with what it imports (ajv, semver), and no import of conf from node_modules', () => {
    expect(bundle).not.toContain('conf schemas are not built into cnv');
    expect(bundle).toContain('json-schema.org/draft/2020-12');
    expect(bundle).not.toContain('__cnvImport("conf")');
  });

  it('imports only the packages kept outside it, and only when used', () => {
    const imported = [...new Set([...bundle.matchAll(/__cnvImport\("([^"]+)"\)/g)].map((m) => m[1]))].sort();
    expect(imported).toEqual(['@jmespath-community/jmespath', 'ora']);
  });
});
