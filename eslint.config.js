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
    ...groups.map(([regex, message]) => ({
      selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
      message,
    })),
  ],
});

const UI = 'user-interface code (cli/, commands/, cmdutil/) is for the layer that talks to commander, not this one';
/** What the layers below the commands are never given: the CLI's Context and commander (docs/architecture.md, "Layers"). */
const NARROW = [
  [folders('cli', 'commands', 'cmdutil'), UI],
  [
    topLevel('context'),
    "the CLI's Context stays with the commands: take narrow inputs (src/cmdutil/context-deps.ts builds them from it)",
  ],
  [
    packages('commander'),
    'commander is for the program and the command helpers (cli/, cmdutil/, commands/): take plain options',
  ],
];

/**
 * The folders of src/ in tiers, from the bottom up (docs/architecture.md, "Layers"): a folder
 * imports only folders of lower tiers, never a folder of its own tier nor one above it; the
 * top-level modules (errors.ts, clock.ts, dates.ts; context.ts only from cmdutil/ up) are
 * below the domain. src/runtime is apart: the launcher's; so is src/emulator (below).
 */
const TIERS = [
  ['lib'],
  ['json', 'limits', 'redact'],
  ['http'],
  ['endpoints', 'config', 'files'],
  ['input', 'output', 'terminal'],
  ['batch', 'exporter'],
  ['contacts', 'ledger'],
  ['records', 'sync', 'tap', 'target'],
  ['cmdutil'],
  ['commands'],
  ['cli'],
];
/**
 * The emulator is apart: a server of the API, not a part of the client. It imports what a folder
 * of this tier may (the tiers below it), and no folder imports it but src/commands/emulator
 * (`cnv emulator`); what it shares with the client goes to a lower folder.
 */
const EMULATOR_TIER = TIERS.findIndex((tier) => tier.includes('input'));
const EMULATOR_APART = [
  folders('emulator'),
  'the emulator is apart: only src/commands/emulator imports it (what the client shares with it goes to a lower folder: lib/, endpoints/...)',
];

/** The tier of the helpers for commands: the layers below it never see the Context or commander. */
const CMDUTIL_TIER = TIERS.findIndex((tier) => tier.includes('cmdutil'));

/**
 * The rules of the folder `name`, in tier `t` (not lib/): siblings, the tiers above, below the
 * commands the Context and commander, and the emulator (but for `startsEmulator`, and itself).
 */
function layerRules(name, t, startsEmulator = false) {
  const siblings = TIERS[t].filter((f) => f !== name);
  const above = TIERS.slice(t + 1)
    .flat()
    .filter((f) => t >= CMDUTIL_TIER || !['cli', 'commands', 'cmdutil'].includes(f));
  const below = TIERS.slice(0, t).flat().join('/, ') + '/';
  const groups = [
    ...(t < CMDUTIL_TIER ? NARROW : []),
    [
      folders('runtime'),
      "tuning the process is the launcher's (src/runtime, through bin/cnv.js): take the hook as an input",
    ],
    ...(startsEmulator || name === 'emulator' ? [] : [EMULATOR_APART]),
  ];
  if (siblings.length)
    groups.push([
      folders(...siblings),
      `src/${name} does not import ${siblings.map((f) => `${f}/`).join(', ')} (the same tier): what both need goes a tier down`,
    ]);
  if (above.length)
    groups.push([
      folders(...above),
      `src/${name} imports only the tiers below it (${below}): ${above.map((f) => `${f}/`).join(', ')} ${above.length > 1 ? 'are' : 'is'} above it`,
    ]);
  return forbid(...groups);
}

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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The launcher is CommonJS (bin/package.json says why, bin/cnv.js).
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Sizes a reader takes in at once, counted in the formatter's lines (Prettier, print width
    // 120: npm run format): every function of src/ at most 80 lines and every file at most 400,
    // blank lines and comments not counted (a function that grows past it is split where its
    // logic divides; a whole concept may fill a file rather than be cut into shards). Not tests, and not the emulator's seed data
    // (src/emulator/seed/): tables of fixtures, whose length is their content, not logic.
    files: ['src/**/*.ts'],
    ignores: ['src/emulator/seed/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
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
      [
        folders(...TIERS.flat().filter((f) => f !== 'lib'), 'emulator'),
        'src/runtime is the process around the CLI: it imports lib/, errors.ts and (for types) main.ts, nothing of the program',
      ],
      [topLevel('context'), "src/runtime is the process around the CLI: the Context is the program's"],
    ),
  },
  ...TIERS.slice(1).flatMap((tier, i) =>
    tier.map((name) => ({ files: [`src/${name}/**/*.ts`], rules: layerRules(name, i + 1) })),
  ),
  // The emulator, apart: its own imports as a folder of its tier; `cnv emulator`, the one command that starts it.
  { files: ['src/emulator/**/*.ts'], rules: layerRules('emulator', EMULATOR_TIER) },
  {
    files: ['src/commands/emulator/**/*.ts'],
    rules: layerRules(
      'commands',
      TIERS.findIndex((tier) => tier.includes('commands')),
      true,
    ),
  },
  {
    // The top-level modules (errors.ts, clock.ts, context.ts...) are below the program and the
    // domain: errors.ts is imported by every layer; main.ts is the program's entry.
    files: ['src/*.ts'],
    ignores: ['src/main.ts'],
    rules: forbid(
      [
        siblingFolders('cli', 'commands', 'cmdutil'),
        'a top-level module of src/ is below the program: it imports no cli/, commands/ or cmdutil/',
      ],
      [
        siblingFolders('batch', 'exporter', 'records', 'sync', 'emulator'),
        'a top-level module of src/ is below the domain: it imports no batch/, exporter/, records/, sync/ or emulator/',
      ],
      [siblingFolders('runtime'), "src/runtime is the launcher's: a top-level module does not reach it"],
    ),
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
