// The built program run from dist/ (ES modules) as bin/cnv.js runs its bundle: the runtime
// applied (heap hold included), the process's streams and environment, the exit code.
//   node dist-cnv.mjs [--whole-pages] <cnv arguments>
// --whole-pages: each export page read whole (test/bench/whole-page-reader.mjs), the baseline of
// the page splitter's rows in suites/parsers.mjs; without it the same program reads pages as cnv
// does, so the two sides differ by the page reader alone (not by the bundle and its code cache).
import { readPagesWhole } from '../whole-page-reader.mjs';

const dist = (path) => import(new URL(`../../../dist/${path}`, import.meta.url).href);
const [{ run }, { applyRuntime }, { HttpClient }, { requestOf }, { rowsData }, { stringifyJson }] = await Promise.all(
  ['main.js', 'runtime/index.js', 'http/client.js', 'http/endpoint.js', 'http/envelope.js', 'lib/exact-number.js'].map(
    dist,
  ),
);
const args = process.argv.slice(2);
if (args[0] === '--whole-pages') {
  args.shift();
  readPagesWhole({ HttpClient, requestOf, rowsData, stringifyJson });
}

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => controller.abort(new Error(signal)));
const tuning = applyRuntime(process.env);
const io = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: Boolean(process.stdin.isTTY),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
};
const code = await run(args, { io, env: process.env, signal: controller.signal, tuning });
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))),
);
process.exit(code);
