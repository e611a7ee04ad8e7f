// ESLint 9 flat config: the recommended rules (typescript-eslint's without type information, so
// lint stays fast) and the import boundaries between the layers of src/ (docs/architecture.md).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** A relative import of one of these folders of src/, at any depth (`../cli/x.js`, `../../io/y.js`). */
const folders = (...names) => `^(\\.\\./)+(${names.join('|')})/`;

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

const UI = 'user-interface code (cli/, commands/) is for the layer that talks to commander, not this one';

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
  // The layers: what each folder of src/ may import (statically or with import() of a literal path).
  {
    files: ['src/lib/**/*.ts'],
    rules: forbid(
      ['^\\.\\./', 'src/lib is dependency-free: it imports nothing from src/ outside lib/'],
      ['^(?!node:|\\.)', 'src/lib is dependency-free: node: built-ins only, no packages'],
    ),
  },
  {
    files: ['src/http/**/*.ts'],
    rules: forbid(
      [folders('cli', 'commands'), UI],
      [folders('io'), 'src/http knows no terminal or file formats: move the primitive to src/lib'],
      [folders('api'), 'src/api builds on src/http, not the other way round'],
    ),
  },
  {
    files: ['src/api/**/*.ts'],
    rules: forbid(
      [folders('cli', 'commands'), UI],
      [folders('io'), 'src/api knows no terminal or file formats: move the primitive to src/lib'],
    ),
  },
  {
    files: ['src/io/**/*.ts'],
    rules: forbid([folders('cli', 'commands'), 'src/io reads and writes data for any layer: it knows no commands (cli/, commands/)']),
  },
  {
    files: ['src/{batch,exports,records,config,emulator}/**/*.ts'],
    rules: forbid([folders('cli', 'commands'), UI]),
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
