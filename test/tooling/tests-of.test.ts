import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a script of the repository, plain JavaScript
import { loadGraph, SPAWNED, testsOf } from '../../scripts/tests-of.mjs';

// docs/architecture.md, "Where a file's tests are": a maintainer changing src/<folder>/<name>.ts finds the
// tests that guard it without grep (`npm run tests-of -- src/<folder>/<name>.ts`). This holds every file of
// src/ to at least one, found by its name, by import or by command.
const ROOT = resolve(import.meta.dirname, '../..');
const graph = loadGraph();
const of = (file: string): string[] => testsOf(graph, file);

describe('every file of src/ has tests found without grep', () => {
  it('every file of src/ has at least one test (by name, by import, by command, or spawned)', () => {
    expect((graph.src as string[]).filter((file) => of(file).length === 0)).toEqual([]);
  });

  it('a test named for a file comes first: its own, then its folder-prefixed one', () => {
    expect(of('src/exporter/advance.ts')[0]).toBe('test/unit/export-advance.test.ts');
    expect(of('src/lib/json-scan.ts')[0]).toBe('test/unit/json-scan.test.ts');
    expect(of('src/cmdutil/json-output.ts')[0]).toBe('test/unit/json-output.test.ts');
  });

  it("a command's own tests are beside its path, then those across commands named for it", () => {
    expect(of('src/commands/export/state/show.ts')[0]).toBe('test/commands/export/state/show.test.ts');
    expect(of('src/commands/contacts/upsert.ts').slice(0, 3)).toEqual([
      'test/commands/contacts/upsert-field-types.test.ts',
      'test/commands/contacts/upsert-file.test.ts',
      'test/commands/contacts/upsert.test.ts',
    ]);
  });

  it("contacts sync's tests, in three folders, are found from the command and from its snapshot", () => {
    expect(of('src/commands/contacts/sync.ts')).toEqual(
      expect.arrayContaining(['test/commands/contacts/sync.test.ts', 'test/e2e/sync.test.ts']),
    );
    expect(of('src/sync/snapshot.ts')).toEqual(
      expect.arrayContaining([
        'test/integration/sync-snapshot.test.ts',
        'test/commands/contacts/sync.test.ts',
        'test/e2e/sync.test.ts',
      ]),
    );
  });

  it('what only a spawned process runs is listed with tests that exist', () => {
    for (const [file, tests] of Object.entries(SPAWNED as Record<string, string[]>)) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      for (const test of tests) expect(existsSync(join(ROOT, test)), test).toBe(true);
    }
  });
});
