import type { Command } from 'commander';
import { CnvCommand } from './cnv-command.js';
import type { ProgramContext } from './create-context.js';
import type { Context } from '../context.js';
import { renderResult } from '../output/render.js';
import { UsageError } from '../errors.js';
import { addCompletionCommands } from './completion-command.js';
import { addGlobalOptions, checkOutputFlags, toGlobals } from './global-options.js';
import { addHelpCommand } from './help-command.js';
import { formatHelp } from './help-layout.js';
import { VERSION } from '../cmdutil/version.js';
import { COMMANDS, isGroup } from './registry.js';
import type { Entry, LeafEntry } from '../cmdutil/contract.js';
import { outputOf } from '../cmdutil/context-deps.js';
import { validateOptions } from '../cmdutil/validate-options.js';
import { describeOutput } from '../cmdutil/json-output.js';

const leaves = new WeakMap<Command, LeafEntry>();

/** The top-level help's examples: a first command of each kind. */
const ROOT_EXAMPLES = [
  'cnv config set-key --profile prod --base-url https://api.example.com < key.txt',
  'cnv contacts get --email ada@example.com',
  'cnv contacts upsert --file contacts.csv --report report.csv',
  "cnv campaigns list --all -q '[].name'",
  'cnv export contacts --out contacts.csv      # every run adds what is new',
  'cnv api GET /v2/fields -f limit=5',
  'cnv emulator --port 4010                    # a local API to try it all on',
];
const loaded = new WeakSet<Command>();

/** The commander tree, with every leaf as a stub until it is about to run. */
export function buildProgram(ctx: ProgramContext, setExitCode: (code: number) => void): Command {
  const program = new CnvCommand('cnv')
    .description('Command-line client for the Marketing Automation Service API v2')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: (s, write) => write(ctx.redact(s)),
    })
    // gh's layout: own flags and commands first, examples, inherited (global) flags last (help-layout.ts).
    .configureHelp({
      showGlobalOptions: true,
      sortSubcommands: false,
      formatHelp: (cmd, helper) => formatHelp(cmd, helper, (cmd as CnvCommand).helpParts),
    })
    // CnvCommand.error makes parse errors cnv's one format, with its own suggestions.
    .showSuggestionAfterError(false);
  addGlobalOptions(program);
  program.helpParts.examples = ROOT_EXAMPLES;

  program.hook('preAction', async (_root, action) => {
    ctx.setGlobals(toGlobals(action.optsWithGlobals(), ctx.env));
    const entry = leaves.get(action);
    // An export's -o is its file's format, not the output's: no conflict with --json there.
    if (entry && !entry.formatIsFile) checkOutputFlags(ctx.globals, entry.markdown);
    if (!entry) refuseJsonOutside(action, ctx.globals);
    if (ctx.globals.query !== undefined) {
      // Compiled now: a bad expression is refused before anything is sent.
      await (await import('../output/query.js')).loadQuery(ctx.globals.query);
    }
  });
  const loadOnDispatch = async (_parent: Command, sub: Command) => {
    await loadLeaf(ctx, sub, setExitCode);
  };
  program.hook('preSubcommand', loadOnDispatch);
  for (const entry of COMMANDS) addEntry(program, entry, loadOnDispatch);
  addHelpCommand(program, ctx, (cmd) => loadLeaf(ctx, cmd, setExitCode));
  addCompletionCommands(program, ctx, () => loadAllCommands(ctx, program));
  return program;
}

/**
 * The commands outside the registry print text that is their data (a completion script, help):
 * --json and -q have no document to apply to, and say so rather than be ignored.
 */
function refuseJsonOutside(action: Command, globals: Context['globals']): void {
  if (action.name() === '__complete') return;
  const flag = globals.query !== undefined ? '-q/--query' : globals.json ? '--json' : undefined;
  if (flag)
    throw new UsageError(
      `${flag}: \`${commandPath(action)}\` prints ` +
        `${action.name() === 'completion' ? 'a shell script' : 'text'}, which has no JSON form`,
      'drop the flag',
    );
}

/** `cnv export state list`, for messages. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function addEntry(parent: Command, entry: Entry, hook: (p: Command, s: Command) => Promise<void>): void {
  const cmd = parent.command(entry.name).description(entry.summary) as CnvCommand;
  for (const alias of entry.aliases ?? []) cmd.alias(alias);
  if (isGroup(entry)) {
    cmd.addHelpText('after', `\nExamples:\n${entry.examples.map((e) => `  $ ${e}`).join('\n')}`);
    cmd.hook('preSubcommand', hook);
    for (const child of entry.children) addEntry(cmd, child, hook);
  } else {
    leaves.set(cmd, entry);
    cmd.helpParts.globals = entry.globals;
  }
}

/** Imports a leaf's module and gives it its options and action. */
async function loadLeaf(ctx: Context, cmd: Command, setExitCode: (code: number) => void): Promise<void> {
  const entry = leaves.get(cmd);
  if (!entry || loaded.has(cmd)) return;
  loaded.add(cmd);
  const mod = await entry.load();
  mod.options.addTo(cmd);
  mod.configure(cmd);
  // Derived when a help page is laid out, never on a run: the schemas are built only then.
  (cmd as CnvCommand).helpParts.json = () => describeOutput(mod.output(), true);
  cmd.action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const queried =
      ctx.globals.query === undefined ? undefined : (await import('../output/query.js')).queryApplications;
    const before = queried?.();
    // Validated before anything runs, with the global options the command's rules read: a bad
    // value or combination is a usage error (exit 2) naming its flag.
    const globals = Object.fromEntries(mod.options.globals.map((key) => [key, ctx.globals[key]]));
    const opts = validateOptions(mod.options, { ...globals, ...command.opts() });
    const result = await mod.run(ctx, { args: command.processedArgs, opts });
    await renderResult(outputOf(ctx), result, { info: (line) => ctx.info(line), warn: (message) => ctx.warn(message) });
    // Every command prints a document for -q (docs/output.md): a run that printed none would
    // let a script's check pass on nothing, so it is a bug, never a quiet exit 0.
    if (queried && queried() === before && (result.exitCode ?? 0) === 0) {
      throw new Error(`\`${commandPath(cmd)}\` printed no JSON document for -q/--query to apply to`);
    }
    setExitCode(result.exitCode ?? 0);
  });
}

/** Every command loaded, for generated docs and shell completion. */
export async function loadAllCommands(ctx: Context, program: Command): Promise<void> {
  const walk = async (cmd: Command) => {
    await loadLeaf(ctx, cmd, () => {});
    for (const sub of cmd.commands) await walk(sub);
  };
  await walk(program);
}
