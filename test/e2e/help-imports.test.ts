import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

// docs/architecture.md, "Flow of one command": `cnv --help` evaluates no command code, no zod,
// no undici, no conf. The bundle evaluates what the program imports statically, as the ES
// modules of dist/ do: this runs the program from dist/ with a loader hook that lists every
// module loaded, so a static import that drags zod into start-up (a flag helper that builds
// schemas, say) fails here rather than in the start-up bench.
const ROOT = resolve(import.meta.dirname, '../..');

const HOOK = `data:text/javascript,${encodeURIComponent("export async function load(url, context, next) { if (url.startsWith('file:')) process._rawDebug('LOADED ' + url); return next(url, context); }")}`;
const PROGRAM = `
import { register } from 'node:module';
import { PassThrough } from 'node:stream';
register(${JSON.stringify(HOOK)});
const { run } = await import(${JSON.stringify(pathToFileURL(resolve(ROOT, 'dist/main.js')).href)});
const out = new PassThrough();
out.resume();
const io = { stdin: process.stdin, stdout: out, stderr: out, stdinIsTTY: false, stdoutIsTTY: true, stderrIsTTY: false };
process.exitCode = await run(JSON.parse(process.argv[1]), { io, env: {}, signal: new AbortController().signal });
`;

async function loadedBy(argv: string[]): Promise<string[]> {
  const res = await execa(process.execPath, ['--input-type=module', '-e', PROGRAM, JSON.stringify(argv)], {
    cwd: ROOT,
    reject: false,
  });
  expect(res.exitCode, res.stderr).toBe(0);
  return res.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => l.slice('LOADED '.length).replace(pathToFileURL(ROOT).href + '/', ''));
}

describe('what start-up loads', () => {
  it('`cnv --help` (laid out by the program, as on a terminal) loads commander and no command, zod, undici or conf', async () => {
    const loaded = await loadedBy(['--help']);
    expect(loaded).toContain('dist/cli/program.js');
    const packages = [...new Set(loaded.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/')[1]))];
    expect(packages).toEqual(['commander']);
    expect(loaded.filter((f) => f.startsWith('dist/commands/'))).toEqual([]);
  });

  it('the check sees a command load: `cnv contacts get --help` loads its module and zod', async () => {
    const loaded = await loadedBy(['contacts', 'get', '--help']);
    expect(loaded).toContain('dist/commands/contacts/get.js');
    expect(loaded.some((f) => f.startsWith('node_modules/zod/'))).toBe(true);
  });
});
