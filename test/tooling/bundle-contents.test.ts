import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the built bundle holds (npm test builds first): conf inside, in the code cache with the
// rest, whole: its own ajv and semver, no stub in their place (docs/startup.md). The bundle is
// dist/bundle/cnv.cjs and the chunks beside it that a run loads when it imports them (scripts/bundle.mjs).
const DIR = resolve(import.meta.dirname, '../../dist/bundle');
const files = readdirSync(DIR).filter((f) => f === 'cnv.cjs' || f.startsWith('chunk-'));
const bundle = files.map((f) => readFileSync(resolve(DIR, f), 'latin1')).join('\n');

describe('dist/bundle/cnv.cjs and its chunks', () => {
  it('holds conf with what it imports (ajv, semver), and no import of conf from node_modules', () => {
    expect(bundle).not.toContain('conf schemas are not built into cnv');
    expect(bundle).toContain('json-schema.org/draft/2020-12');
    expect(bundle).not.toContain('__cnvImport("conf")');
  });

  it('imports only the packages kept outside it, and only when used', () => {
    const imported = [...new Set([...bundle.matchAll(/__cnvImport\("([^"]+)"\)/g)].map((m) => m[1]))].sort();
    expect(imported).toEqual(['@jmespath-community/jmespath', 'ora']);
  });

  it('cnv.cjs holds what every run runs; a command, zod, undici and conf are in chunks loaded when imported', () => {
    const core = readFileSync(resolve(DIR, 'cnv.cjs'), 'latin1');
    expect(core).toContain('// src/cli/program.ts');
    expect(core).toContain('// node_modules/commander/');
    for (const lazy of ['// src/commands/', '// node_modules/zod/', '// node_modules/undici/', '// node_modules/conf/'])
      expect(core, lazy).not.toContain(lazy);
    expect(files.length).toBeGreaterThan(1);
  });
});
