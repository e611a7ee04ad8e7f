// `npm run tests-of -- src/<folder>/<name>.ts`: the test files that guard a file of src/, found without grep
// (docs/architecture.md, "Where a file's tests are"), closest first:
// 1. by name: for a command, test/commands/<noun>/<verb>.test.ts (and <verb>-<topic>.test.ts)
//    beside its module's path, and the tests across commands named for its noun or verb in
//    test/cli/ and test/e2e/ (<noun>, <verb>, <noun>-<verb>, each with -<topic> or not: e2e/sync,
//    e2e/export-files); for any other file, a test named for it in any folder of test/:
//    <name>.test.ts or <folder>-<name>.test.ts (exporter/ is `export-`), with -<topic> or not;
// 2. by import: the tests that import it, directly or through other modules (static imports);
// 3. by command: the tests, by name, of each command module that imports it, statically or with
//    import() of a literal path (commands are loaded with import(), and load their heavy parts
//    so: an in-process run of a command reaches what no test imports);
// 4. SPAWNED: what only a spawned process runs (the launcher's src/runtime), listed by hand.
// test/tooling/tests-of.test.ts holds every file of src/ to at least one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Files only a spawned process runs, and the tests that spawn it. */
export const SPAWNED = {
  'src/runtime/index.ts': ['test/e2e/runtime.test.ts', 'test/e2e/launcher.test.ts'],
  'src/runtime/own-signals.ts': ['test/e2e/runtime.test.ts', 'test/e2e/signal-waits.test.ts'],
  'src/runtime/launch-answers.ts': ['test/e2e/launcher.test.ts'],
  'src/runtime/load-bundle.ts': ['test/e2e/launcher.test.ts', 'test/integration/code-cache.test.ts'],
  'src/runtime/engine-flags.ts': ['test/unit/heap-hold.test.ts', 'test/cli/runtime-tuning.test.ts'],
  'src/cli/complete-fast.ts': ['test/e2e/operator-ux.test.ts'],
};

function walk(dir, keep) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? walk(path, keep) : keep(e.name) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|^import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/** A command module's import() of a literal path: the heavy parts it loads when it runs. */
const COMMAND_LOAD = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/**
 * The files of src/ and test/ a file imports statically (a .js specifier names its .ts source),
 * and for a command module what it loads with import() too (the registry's import() of every
 * command is not followed: a test that runs one command does not guard the others).
 */
function importsOf(file) {
  const found = new Set();
  const text = readFileSync(join(ROOT, file), 'utf8');
  const loads = file.startsWith('src/commands/') ? [...text.matchAll(COMMAND_LOAD)].map((m) => m[1]) : [];
  for (const spec of [...[...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]), ...loads]) {
    const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
    if (existsSync(join(ROOT, target))) found.add(target);
  }
  return found;
}

/** The repository's source and test files and who imports whom. */
export function loadGraph() {
  const src = walk('src', (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
  const tests = walk('test', (n) => n.endsWith('.test.ts'));
  const helpers = walk('test', (n) => n.endsWith('.ts') && !n.endsWith('.test.ts'));
  const imports = new Map([...src, ...tests, ...helpers].map((f) => [f, importsOf(f)]));
  return { src, tests, imports, reached: new Map() };
}

/** Every file `file` reaches through static imports. */
function reach(graph, file) {
  const known = graph.reached.get(file);
  if (known) return known;
  const seen = new Set();
  graph.reached.set(file, seen);
  const stack = [file];
  while (stack.length) {
    for (const next of graph.imports.get(stack.pop()) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return seen;
}

/** How test files name a folder of src/ when it is their prefix. */
const FOLDER_PREFIX = { exporter: 'export' };

/** A test file's name: one of `names`, then -<topic> or not. */
const namedFor = (names) => new RegExp(`^(${names.join('|')})(-[\\w-]+)?\\.test\\.ts$`);

/** The tests named for a file of src/ (rule 1). */
export function testsByName(graph, file) {
  const name = basename(file, '.ts');
  if (file.startsWith('src/commands/')) {
    const dir = `test/${dirname(file).slice('src/'.length)}/`;
    const [noun] = dirname(file).split('/').slice(2);
    const own = graph.tests.filter(
      (t) => t.startsWith(dir) && !t.slice(dir.length).includes('/') && namedFor([name]).test(basename(t)),
    );
    const across = graph.tests.filter(
      (t) => /^test\/(cli|e2e)\//.test(t) && namedFor([noun, name, `${noun}-${name}`]).test(basename(t)),
    );
    return [...own, ...across];
  }
  const folder = basename(dirname(file));
  const named = namedFor([name, `${FOLDER_PREFIX[folder] ?? folder}-${name}`]);
  return graph.tests.filter((t) => named.test(basename(t)));
}

/** The tests that guard `file` (a path from the repository's root), closest first, each once. */
export function testsOf(graph, file) {
  const byName = testsByName(graph, file);
  const byImport = graph.tests.filter((t) => reach(graph, t).has(file));
  const commands = graph.src.filter((c) => c.startsWith('src/commands/') && reach(graph, c).has(file));
  const byCommand = commands.flatMap((c) => testsByName(graph, c));
  return [...new Set([...byName, ...byImport, ...byCommand, ...(SPAWNED[file] ?? [])])];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = loadGraph();
  const files = process.argv.slice(2).map((f) => relative(ROOT, resolve(f)));
  if (files.length === 0) {
    console.error('usage: npm run tests-of -- src/<folder>/<name>.ts [...]');
    process.exitCode = 2;
  }
  for (const file of files) {
    const found = testsOf(graph, file);
    console.log(`${file}:${found.length ? '' : ' no test found'}`);
    for (const t of found) console.log(`  ${t}`);
  }
}
