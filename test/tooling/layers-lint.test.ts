import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import boundaries of eslint.config.js (docs/architecture.md, "Layers"), run on snippets so
// that a changed glob or pattern cannot silently stop the rule from firing.
const eslint = new ESLint({ cwd: fileURLToPath(new URL('../..', import.meta.url)) });

/** Messages of the boundary rule for `code` linted as if it were the file `path`. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

describe('layer boundaries (ESLint no-restricted-imports, and no-restricted-syntax for import())', () => {
  it.each([
    [
      'src/http/probe.ts',
      "import { integer } from '../cli/parse.js';\nexport const n = integer;\n",
      /cli\/, commands\//,
    ],
    [
      'src/http/probe.ts',
      "import { writeFlushed } from '../output/write.js';\nexport const w = writeFlushed;\n",
      /src\/http imports only the tiers below it \(lib\/, json\/, limits\/, redact\/\): .*output\//,
    ],
    // The JSON codec and the byte limits (issue 35): below the request path, siblings.
    [
      'src/json/probe.ts',
      "import { readCapped } from '../http/body.js';\nexport const r = readCapped;\n",
      /src\/json imports only the tiers below it \(lib\/\): .*http\//,
    ],
    [
      'src/limits/probe.ts',
      "import { parseJson } from '../json/exact-json.js';\nexport const p = parseJson;\n",
      /src\/limits does not import json\/, redact\/ \(the same tier\)/,
    ],
    [
      'src/http/probe.ts',
      "import { getContact } from '../endpoints/contacts.js';\nexport const g = getContact;\n",
      /src\/http imports only the tiers below it.*endpoints\//,
    ],
    [
      'src/endpoints/probe.ts',
      "import type { IdentifierKind } from '../cli/identifier.js';\nexport type K = IdentifierKind;\n",
      /cli\/, commands\//,
    ],
    [
      'src/endpoints/probe.ts',
      "import { csvCell } from '../output/csv-line.js';\nexport const c = csvCell;\n",
      /src\/endpoints imports only the tiers below it/,
    ],
    [
      'src/lib/probe.ts',
      "import { UsageError } from '../errors.js';\nexport const e = UsageError;\n",
      /imports nothing from src\/ outside lib/,
    ],
    ['src/lib/probe.ts', "import { z } from 'zod';\nexport const s = z.string();\n", /no packages/],
    ['src/exporter/probe.ts', "export { integer } from '../cli/parse.js';\n", /cli\/, commands\//],
    [
      'src/emulator/routes/probe.ts',
      "import { run } from '../../commands/version/version.js';\nexport const r = run;\n",
      /cli\/, commands\//,
    ],
    [
      'src/batch/probe.ts',
      "import { looseJson } from '../cli/parse.js';\nexport const l = looseJson;\n",
      /cli\/, commands\//,
    ],
    [
      'src/exporter/probe.ts',
      "export const load = () => import('../commands/version/version.js');\n",
      /cli\/, commands\//,
    ],
    [
      'src/http/probe.ts',
      "export const load = async () => (await import('../output/write.js')).writeFlushed;\n",
      /src\/http imports only the tiers below it/,
    ],
    ['src/lib/probe.ts', "export const load = () => import('zod');\n", /no packages/],
    [
      'src/output/probe.ts',
      "import { COMMANDS } from '../cli/registry.js';\nexport const c = COMMANDS;\n",
      /user-interface code \(cli\/, commands\/, cmdutil\/\)/,
    ],
    // The Context and commander stay above the domain layers (issue 24): each layer, static and import().
    [
      'src/exporter/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /Context stays with the commands/,
    ],
    [
      'src/batch/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /Context stays with the commands/,
    ],
    ['src/records/probe.ts', "export const load = () => import('../context.js');\n", /Context stays with the commands/],
    [
      'src/input/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /Context stays with the commands/,
    ],
    [
      'src/http/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /Context stays with the commands/,
    ],
    [
      'src/endpoints/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /Context stays with the commands/,
    ],
    [
      'src/exporter/probe.ts',
      "import type { Command } from 'commander';\nexport type C = Command;\n",
      /commander is for the program/,
    ],
    [
      'src/batch/probe.ts',
      "import { Option } from 'commander';\nexport const o = Option;\n",
      /commander is for the program/,
    ],
    [
      'src/terminal/probe.ts',
      "import type { Command } from 'commander';\nexport type C = Command;\n",
      /commander is for the program/,
    ],
    [
      'src/records/probe.ts',
      "import type { Command } from 'commander';\nexport type C = Command;\n",
      /commander is for the program/,
    ],
    ['src/http/probe.ts', "export const load = () => import('commander');\n", /commander is for the program/],
    [
      'src/endpoints/probe.ts',
      "import { Command } from 'commander';\nexport const c = Command;\n",
      /commander is for the program/,
    ],
    [
      'src/exporter/probe.ts',
      "import { outputOf } from '../cmdutil/context-deps.js';\nexport const o = outputOf;\n",
      /cli\/, commands\/, cmdutil\//,
    ],
    // The three probes that slipped through before: runtime -> cli, context.ts -> cli, output/input -> the domain.
    [
      'src/runtime/probe.ts',
      "import { COMMANDS } from '../cli/registry.js';\nexport const c = COMMANDS;\n",
      /src\/runtime is the process around the CLI/,
    ],
    [
      'src/runtime/probe.ts',
      "import { createAgent } from '../http/agent.js';\nexport const a = createAgent;\n",
      /src\/runtime is the process around the CLI/,
    ],
    [
      'src/context.ts',
      "import type { Entry } from './cmdutil/contract.js';\nexport type E = Entry;\n",
      /a top-level module of src\/ is below the program/,
    ],
    [
      'src/errors.ts',
      "export const load = () => import('./cli/program.js');\n",
      /a top-level module of src\/ is below the program/,
    ],
    [
      'src/output/probe.ts',
      "import type { ExportSummary } from '../exporter/run-summary.js';\nexport type S = ExportSummary;\n",
      /src\/output imports only the tiers below it.*exporter\//,
    ],
    [
      'src/input/probe.ts',
      "import type { BatchDeps } from '../batch/batch-deps.js';\nexport type D = BatchDeps;\n",
      /src\/input imports only the tiers below it.*batch\//,
    ],
    // Helpers below the commands, the program above them; tuning only through the launcher.
    [
      'src/cmdutil/probe.ts',
      "import { COMMANDS } from '../cli/registry.js';\nexport const c = COMMANDS;\n",
      /src\/cmdutil imports only the tiers below it.*commands\/, cli\//,
    ],
    [
      'src/commands/probe.ts',
      "import { COMMANDS } from '../cli/registry.js';\nexport const c = COMMANDS;\n",
      /src\/commands imports only the tiers below it.*: cli\/ is above it/,
    ],
    [
      'src/exporter/probe.ts',
      "import { holdHeapSize } from '../runtime/heap-hold.js';\nexport const h = holdHeapSize;\n",
      /tuning the process is the launcher's/,
    ],
    [
      'src/http/probe.ts',
      "import { ENDPOINTS } from '../endpoints/endpoints.js';\nexport const e = ENDPOINTS;\n",
      /src\/http imports only the tiers below it/,
    ],
    // Siblings (issue 32): a folder imports no folder of its own tier, and nothing above it.
    [
      'src/records/probe.ts',
      "import { runSync } from '../sync/phases.js';\nexport const r = runSync;\n",
      /src\/records does not import sync\/, tap\/, target\/ \(the same tier\)/,
    ],
    [
      'src/sync/probe.ts',
      "import type { RecordsOptions } from '../records/prepare.js';\nexport type R = RecordsOptions;\n",
      /src\/sync does not import records\/, tap\/, target\/ \(the same tier\)/,
    ],
    [
      'src/tap/probe.ts',
      "import type { SyncCounts } from '../sync/sync-counts.js';\nexport type S = SyncCounts;\n",
      /src\/tap does not import records\/, sync\/, target\/ \(the same tier\)/,
    ],
    [
      'src/target/probe.ts',
      "import { runSync } from '../sync/phases.js';\nexport const r = runSync;\n",
      /src\/target does not import records\/, sync\/, tap\/ \(the same tier\)/,
    ],
    [
      'src/tap/probe.ts',
      "import type { Context } from '../context.js';\nexport type C = Context;\n",
      /the CLI's Context stays with the commands/,
    ],
    [
      'src/batch/probe.ts',
      "import type { ExportDeps } from '../exporter/export-deps.js';\nexport type D = ExportDeps;\n",
      /src\/batch does not import exporter\/ \(the same tier\)/,
    ],
    [
      'src/exporter/probe.ts',
      "export const load = () => import('../batch/file-run.js');\n",
      /src\/exporter does not import batch\/ \(the same tier\)/,
    ],
    [
      'src/batch/probe.ts',
      "import { checkRecordRow } from '../records/check.js';\nexport const c = checkRecordRow;\n",
      /src\/batch imports only the tiers below it.*records\//,
    ],
    [
      'src/exporter/probe.ts',
      "import type { SyncCounts } from '../sync/sync-counts.js';\nexport type S = SyncCounts;\n",
      /src\/exporter imports only the tiers below it.*sync\//,
    ],
    [
      'src/input/probe.ts',
      "import { render } from '../output/render.js';\nexport const r = render;\n",
      /src\/input does not import output\/, terminal\/ \(the same tier\)/,
    ],
    [
      'src/output/probe.ts',
      "import { confirm } from '../terminal/confirm.js';\nexport const c = confirm;\n",
      /src\/output does not import input\/, terminal\/ \(the same tier\)/,
    ],
    [
      'src/terminal/probe.ts',
      "import { readInput } from '../input/input-reader.js';\nexport const r = readInput;\n",
      /src\/terminal does not import input\//,
    ],
    [
      'src/emulator/routes/probe.ts',
      "import { writeFlushed } from '../../output/write.js';\nexport const w = writeFlushed;\n",
      /src\/emulator does not import input\/, output\/, terminal\//,
    ],
    [
      'src/emulator/probe.ts',
      "import type { BatchDeps } from '../batch/batch-deps.js';\nexport type D = BatchDeps;\n",
      /src\/emulator imports only the tiers below it.*batch\//,
    ],
    [
      'src/endpoints/probe.ts',
      "import { configDir } from '../config/paths.js';\nexport const c = configDir;\n",
      /src\/endpoints does not import config\/, files\//,
    ],
    [
      'src/config/probe.ts',
      "import { takeLock } from '../files/owner-lock.js';\nexport const t = takeLock;\n",
      /src\/config does not import endpoints\/, files\//,
    ],
    [
      'src/files/probe.ts',
      "import type { Output } from '../output/format.js';\nexport type O = Output;\n",
      /src\/files imports only the tiers below it.*output\//,
    ],
    [
      'src/cmdutil/probe.ts',
      "import { run } from '../commands/version/version.js';\nexport const r = run;\n",
      /src\/cmdutil imports only the tiers below it/,
    ],
    [
      'src/errors.ts',
      "import type { BatchDeps } from './batch/batch-deps.js';\nexport type D = BatchDeps;\n",
      /a top-level module of src\/ is below the domain/,
    ],
    // The emulator apart (issue 35): no folder imports it but src/commands/emulator, whatever its tier.
    [
      'src/cmdutil/probe.ts',
      "import { SETTABLE_STATUSES } from '../emulator/model.js';\nexport const s = SETTABLE_STATUSES;\n",
      /the emulator is apart: only src\/commands\/emulator imports it/,
    ],
    [
      'src/commands/contacts/probe.ts',
      "import { SETTABLE_STATUSES } from '../../emulator/model.js';\nexport const s = SETTABLE_STATUSES;\n",
      /the emulator is apart/,
    ],
    [
      'src/sync/probe.ts',
      "import type { Store } from '../emulator/store.js';\nexport type S = Store;\n",
      /the emulator is apart/,
    ],
    ['src/input/probe.ts', "export const load = () => import('../emulator/index.js');\n", /the emulator is apart/],
    ['src/cli/probe.ts', "export const load = () => import('../emulator/index.js');\n", /the emulator is apart/],
    [
      'src/endpoints/probe.ts',
      "import { startEmulator } from '../emulator/index.js';\nexport const s = startEmulator;\n",
      /the emulator is apart/,
    ],
    [
      'src/runtime/probe.ts',
      "import { startEmulator } from '../emulator/index.js';\nexport const s = startEmulator;\n",
      /src\/runtime is the process around the CLI/,
    ],
  ])('%s: %s is refused', async (path, code, message) => {
    const errors = await boundaryErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    [
      'src/http/probe.ts',
      "import { escapeControl } from '../lib/terminal-text.js';\nimport { ApiError } from '../errors.js';\nexport const x = [escapeControl, ApiError];\n",
    ],
    [
      'src/http/probe.ts',
      "import { parseJson } from '../json/exact-json.js';\nimport { BODY_LIMITS } from '../limits/limits.js';\nexport const x = [parseJson, BODY_LIMITS];\n",
    ],
    [
      'src/input/probe.ts',
      "import { parseJson } from '../json/exact-json.js';\nimport { MAX_WRITE_BYTES } from '../limits/limits.js';\nexport const x = [parseJson, MAX_WRITE_BYTES];\n",
    ],
    [
      'src/endpoints/probe.ts',
      "import type { HttpClient } from '../http/client.js';\nimport { scanJson } from '../lib/json-scan.js';\nexport type H = HttpClient;\nexport const s = scanJson;\n",
    ],
    [
      'src/lib/probe.ts',
      "import { readFile } from 'node:fs/promises';\nimport { escapeControl } from './terminal-text.js';\nexport const x = [readFile, escapeControl];\n",
    ],
    [
      'src/emulator/routes/probe.ts',
      "import { escapeControl } from '../../lib/terminal-text.js';\nimport { Router } from '../router.js';\nexport const x = [escapeControl, Router];\n",
    ],
    ['src/exporter/probe.ts', "import { writeFlushed } from '../output/write.js';\nexport const w = writeFlushed;\n"],
    ['src/exporter/probe.ts', "export const load = () => import('../endpoints/fields.js');\n"],
    ['src/lib/probe.ts', "export const load = () => import('node:zlib');\n"],
    [
      'src/commands/probe.ts',
      "import { integer } from '../lib/option-values.js';\nimport { uuidArgument } from '../cmdutil/parse.js';\nexport const x = [integer, uuidArgument];\n",
    ],
    [
      'src/cmdutil/probe.ts',
      "import type { Command } from 'commander';\nimport type { Context } from '../context.js';\nimport type { ExportDeps } from '../exporter/export-deps.js';\nexport type X = [Command, Context, ExportDeps];\n",
    ],
    [
      'src/cli/probe.ts',
      "import type { Entry } from '../cmdutil/contract.js';\nimport { outputOf } from '../cmdutil/context-deps.js';\nexport type E = Entry;\nexport const o = outputOf;\n",
    ],
    [
      'src/runtime/probe.ts',
      "import { isAlive } from '../lib/process-alive.js';\nimport type { run } from '../main.js';\nexport const x = isAlive;\nexport type R = typeof run;\n",
    ],
    [
      'src/emulator/seed/probe.ts',
      "import type { SeedContext } from './seed-context.js';\nexport type S = SeedContext;\n",
    ],
    // `cnv emulator` starts it: the one folder that may import the emulator.
    [
      'src/commands/emulator/probe.ts',
      "export const load = () => import('../../emulator/index.js');\nimport { outputOf } from '../../cmdutil/context-deps.js';\nexport const o = outputOf;\n",
    ],
    [
      'src/emulator/probe.ts',
      "import { ENDPOINTS } from '../endpoints/endpoints.js';\nimport { parseJson } from '../http/exact-json.js';\nexport const x = [ENDPOINTS, parseJson];\n",
    ],
    [
      'src/exporter/probe.ts',
      "import type { Notices } from '../output/notices.js';\nimport { configDir } from '../config/paths.js';\nexport type N = Notices;\nexport const c = configDir;\n",
    ],
    // The tiers below: records and sync on the file run, sync on the exporter, the readers on files/.
    [
      'src/records/probe.ts',
      "import { runFileBatch } from '../batch/file-run.js';\nimport type { FieldsByParent } from '../batch/columns/field-match.js';\nexport const r = runFileBatch;\nexport type F = FieldsByParent;\n",
    ],
    [
      'src/sync/probe.ts',
      "import type { ExportDeps } from '../exporter/export-deps.js';\nimport { runFileBatch } from '../batch/file-run.js';\nexport type D = ExportDeps;\nexport const r = runFileBatch;\n",
    ],
    [
      'src/tap/probe.ts',
      "import { pageSource } from '../exporter/page-source.js';\nimport { writeWithBackpressure } from '../output/write.js';\nexport const x = [pageSource, writeWithBackpressure];\n",
    ],
    [
      'src/batch/columns/probe.ts',
      "import { columnForm } from '../../input/column-names.js';\nimport { writeFlushed } from '../../output/write.js';\nexport const x = [columnForm, writeFlushed];\n",
    ],
    [
      'src/input/probe.ts',
      "import { openInput } from '../files/file-streams.js';\nimport type { FieldDefinition } from '../endpoints/fields.js';\nexport const o = openInput;\nexport type F = FieldDefinition;\n",
    ],
  ])('%s: allowed imports pass', async (path, code) => {
    expect(await boundaryErrors(path, code)).toEqual([]);
  });
});

/** Messages of the size rules for `code` linted as if it were the file `path`. */
async function sizeErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result.messages
    .filter((m) => m.ruleId === 'max-lines-per-function' || m.ruleId === 'max-lines')
    .map((m) => `${m.ruleId}: ${m.message}`);
}

/** A function of `lines` lines of code in all (its first and last included), with a comment and a blank line after each statement. */
const fn = (lines: number) =>
  `export function probe(): number {\n  let n = 0;\n${'  n++;\n  // counted by neither rule\n\n'.repeat(lines - 4)}  return n;\n}\n`;
/** A file of `lines` one-line declarations. */
const file = (lines: number) => Array.from({ length: lines }, (_, i) => `export const c${i} = ${i};\n`).join('');

describe('sizes (ESLint max-lines-per-function: 80, max-lines: 400, in formatted lines; blank lines and comments not counted)', () => {
  it.each([
    [
      'src/output/probe.ts',
      fn(81),
      /^max-lines-per-function: Function 'probe' has too many lines \(81\)\. Maximum allowed is 80\.$/,
    ],
    ['src/emulator/routes/probe.ts', fn(81), /^max-lines-per-function: /],
    ['src/output/probe.ts', file(401), /^max-lines: File has too many lines \(401\)\. Maximum allowed is 400\.$/],
    ['src/cli/probe.ts', file(401), /^max-lines: /],
  ])('%s: over the limit is refused', async (path, code, message) => {
    const errors = await sizeErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    // At the limit, however many blank lines and comments around the statements.
    ['src/output/probe.ts', fn(80)],
    ['src/output/probe.ts', `${file(400)}\n// a comment\n\n/** and a JSDoc */\n`],
    // The emulator's seed data and the tests are not held to it.
    ['src/emulator/seed/probe.ts', fn(81) + file(401)],
    ['test/tooling/probe.test.ts', fn(81) + file(401)],
  ])('%s: within the limit, or not held to it, passes', async (path, code) => {
    expect(await sizeErrors(path, code)).toEqual([]);
  });
});
