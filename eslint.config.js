// ESLint 9 flat config: the recommended rules (typescript-eslint's without type information, so
// lint stays fast) and the import boundaries between the layers of src/ (docs/architecture.md).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** A relative import of one of these folders of src/, at any depth (`../cli/x.js`, `../../io/y.js`). */
const folders = (...names) => `^(\\.\\./)+(${names.join('|')})/`;
/** The same from a top-level module of src/ (`./cli/x.js`). */
const siblingFolders = (...names) => `^\\./(${names.join('|')})/`;
/** A relative import of a top-level module of src/ from a folder (`../context.js`, `../../context.js`). */
const topLevel = (...names) => `^(\\.\\./)+(${names.join('|')})\\.js$`;
/** An import of one of these packages (or a file of one). */
const packages = (...names) => `^(${names.join('|')})(/|$)`;

/**
 * The rules for one layer, one message per forbidden group of imports: `no-restricted-imports`
 * for static imports and re-exports, `no-restricted-syntax` for `import()` of a literal path
 * (commands and heavy dependencies are loaded lazily, so a dynamic import is an import too).
 */
const forbid = (...groups) => ({
  'no-restricted-imports': ['error', { patterns: groups.map(([regex, message]) => ({ regex, message })) }],
  'no-restricted-syntax': [
    'error',
    ...groups.map(([regex, message]) => ({ selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`, message })),
  ],
});

const UI = 'user-interface code (cli/, commands/, cmdutil/) is for the layer that talks to commander, not this one';
/** What the layers below the commands are never given: the CLI's Context and commander (docs/architecture.md, "Layers"). */
const NARROW = [
  [folders('cli', 'commands', 'cmdutil'), UI],
  [topLevel('context'), "the CLI's Context stays with the commands: take narrow inputs (src/cmdutil/deps.ts builds them from it)"],
  [packages('commander'), 'commander is for the program and the command helpers (cli/, cmdutil/, commands/): take plain options'],
];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.tmp/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Finding and escaping control characters is part of cnv's job (terminal-safe output,
      // API keys, paths), and tests assert that none leak: such regexes are meant.
      'no-control-regex': 'off',
      // `_name` says "unused on purpose" (a callback's place-holding parameter, a destructured rest).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // The launcher is CommonJS (bin/package.json says why, bin/cnv.js).
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Sizes a reader takes in at once: every function of src/ at most 60 lines and every file at
    // most 300, blank lines and comments not counted (a function that grows past it is split
    // where its logic divides, not squeezed). Not tests, and not the emulator's seed data
    // (src/emulator/seed/): tables of fixtures, whose length is their content, not logic.
    files: ['src/**/*.ts'],
    ignores: ['src/emulator/seed/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  // The layers: what each folder of src/ may import (statically or with import() of a literal path).
  {
    files: ['src/lib/**/*.ts'],
    rules: forbid(
      ['^\\.\\./', 'src/lib is dependency-free: it imports nothing from src/ outside lib/'],
      ['^(?!node:|\\.)', 'src/lib is dependency-free: node: built-ins only, no packages'],
    ),
  },
  {
    // The launcher's part: what bin/cnv.js applies to its process, before and around the CLI.
    files: ['src/runtime/**/*.ts'],
    rules: forbid(
      [folders('cli', 'commands', 'cmdutil', 'http', 'endpoints', 'io', 'exports', 'batch', 'records', 'sync', 'config', 'emulator'), 'src/runtime is the process around the CLI: it imports lib/, errors.ts and (for types) main.ts, nothing of the program'],
      [topLevel('context'), 'src/runtime is the process around the CLI: the Context is the program\'s'],
    ),
  },
  {
    files: ['src/http/**/*.ts'],
    rules: forbid(
      ...NARROW,
      [folders('io'), 'src/http knows no terminal or file formats: move the primitive to src/lib'],
      [folders('endpoints'), 'src/endpoints builds on src/http, not the other way round'],
      [folders('exports', 'batch', 'records', 'sync', 'config', 'emulator', 'runtime'), 'src/http is below every other layer but lib/: it imports none of them'],
    ),
  },
  {
    files: ['src/endpoints/**/*.ts'],
    rules: forbid(
      ...NARROW,
      [folders('io'), 'src/endpoints knows no terminal or file formats: move the primitive to src/lib'],
      [folders('exports', 'batch', 'records', 'sync', 'config', 'emulator', 'runtime'), 'src/endpoints is below the layers that use the API: it imports none of them'],
    ),
  },
  {
    files: ['src/io/**/*.ts'],
    rules: forbid(
      [folders('cli', 'commands', 'cmdutil'), 'src/io reads and writes data for any layer: it knows no commands (cli/, commands/, cmdutil/)'],
      ...NARROW.slice(1),
      [folders('exports', 'batch', 'records', 'sync', 'emulator', 'runtime'), 'src/io is below exports/, batch/ and records/: they use it, not the other way round'],
    ),
  },
  {
    files: ['src/{batch,exports,records}/**/*.ts'],
    rules: forbid(
      ...NARROW,
      [folders('runtime'), 'tuning the process is the launcher\'s (src/runtime, through bin/cnv.js): take the hook as an input'],
      [folders('sync'), 'src/sync builds on batch/ and exports/ (a file run over a snapshot export), not the other way round'],
    ),
  },
  {
    // contacts sync: a file run (batch/) deciding each row against a snapshot kept by an export (exports/).
    files: ['src/sync/**/*.ts'],
    rules: forbid(...NARROW, [folders('runtime'), 'tuning the process is the launcher\'s (src/runtime, through bin/cnv.js): take the hook as an input']),
  },
  {
    files: ['src/{config,emulator}/**/*.ts'],
    rules: forbid(...NARROW),
  },
  {
    // The top-level modules (errors.ts, clock.ts, context.ts...) are below the program; main.ts is the program's entry.
    files: ['src/*.ts'],
    ignores: ['src/main.ts'],
    rules: forbid(
      [siblingFolders('cli', 'commands', 'cmdutil'), 'a top-level module of src/ is below the program: it imports no cli/, commands/ or cmdutil/'],
      [siblingFolders('runtime'), 'src/runtime is the launcher\'s: a top-level module does not reach it'],
    ),
  },
  {
    files: ['src/cmdutil/**/*.ts'],
    rules: forbid([folders('cli', 'commands'), 'src/cmdutil holds the commands\' helpers: it is below commands/ and cli/, and imports neither']),
  },
  {
    files: ['src/commands/**/*.ts'],
    rules: forbid([folders('cli'), 'a command is loaded by the program (src/cli): it imports helpers from src/cmdutil, never the program']),
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON answers and hand malformed values to typed functions on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      // Two spaces are a table's column gap, written as the table prints it.
      'no-regex-spaces': 'off',
    },
  },
);
