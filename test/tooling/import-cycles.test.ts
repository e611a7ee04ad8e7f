import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The import graph of src/ has no cycle, between files or between layers (docs/architecture.md,
// "Layers"). Every import counts: static, `import type` (a type-only cycle still ties two
// modules into one unit to read, move and test) and `import()` of a literal path (commands and
// heavy dependencies load lazily, but a lazy import is still a dependency).
const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** file -> the files of src/ it imports (relative specifiers, `.js` written for the `.ts` file). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const files = sourceFiles(SRC);
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
    graph.set(relative(SRC, file), new Set(targets.filter((t) => files.includes(t)).map((t) => relative(SRC, t))));
  }
  return graph;
}

/** The layer of a file: its folder under src/ (`exporter`), or the top-level module itself (`errors.ts`). */
const layerOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

function layerGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = layerOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of targets) if (layerOf(target) !== from) graph.get(from)!.add(layerOf(target));
  }
  return graph;
}

/** The strongly connected components of more than one node (Tarjan), each as one cycle found in it. */
function cycles(graph: Map<string, Set<string>>): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(oneCycle(graph, new Set(component), v).join(' -> '));
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A path from `start` back to itself inside one component, for the failure message. */
function oneCycle(graph: Map<string, Set<string>>, component: Set<string>, start: string): string[] {
  const seen = new Set<string>();
  const walk = (v: string, path: string[]): string[] | undefined => {
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!component.has(w)) continue;
      if (w === start) return [...path, w];
      if (seen.has(w)) continue;
      seen.add(w);
      const found = walk(w, [...path, w]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]) ?? [...component];
}

describe('the import graph of src/', () => {
  const files = importGraph();

  it('has no cycle between files', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('has no cycle between layers (a folder, or a top-level module)', () => {
    expect(cycles(layerGraph(files))).toEqual([]);
  });

  it('the check finds a cycle when there is one (type-only and lazy imports count)', () => {
    const graph = new Map(files);
    graph.set('output/probe.ts', new Set(['exporter/plan.ts']));
    graph.set('exporter/plan.ts', new Set([...graph.get('exporter/plan.ts')!, 'output/probe.ts']));
    expect(cycles(graph)).toEqual([
      expect.stringMatching(
        /^(exporter\/plan\.ts -> output\/probe\.ts -> exporter\/plan\.ts|output\/probe\.ts -> exporter\/plan\.ts -> output\/probe\.ts)$/,
      ),
    ]);
    const layers = cycles(layerGraph(graph));
    expect(layers).toHaveLength(1);
    expect(layers[0]).toMatch(
      /^(exporter -> (.+ -> )?output -> (.+ -> )?exporter|output -> (.+ -> )?exporter -> (.+ -> )?output)$/,
    );
    const { importedFiles } = ts.preProcessFile(
      "import type { A } from './a.js';\nexport const b = () => import('./b.js');\n",
      true,
      true,
    );
    expect(importedFiles.map((i) => i.fileName)).toEqual(['./a.js', './b.js']);
  });
});
