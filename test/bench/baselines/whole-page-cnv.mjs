// `cnv` with each export page read whole (test/bench/whole-page-reader.mjs): the baseline of the
// page splitter's rows in suites/parsers.mjs. `node whole-page-cnv.mjs <cnv arguments>` runs the
// built program (dist/, ES modules) as bin/cnv.js runs its bundle: the runtime applied (heap
// hold included), the process's streams and environment, the exit code.
import { readPagesWhole } from '../whole-page-reader.mjs';

const dist = (path) => import(new URL(`../../../dist/${path}`, import.meta.url).href);
const [{ run }, { applyRuntime }, { HttpClient }, { requestOf }, { rowsData }, { stringifyJson }] = await Promise.all(
  ['main.js', 'runtime/index.js', 'http/client.js', 'http/endpoint.js', 'http/envelope.js', 'lib/exact-number.js'].map(dist),
);
readPagesWhole({ HttpClient, requestOf, rowsData, stringifyJson });

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
const code = await run(process.argv.slice(2), { io, env: process.env, signal: controller.signal, tuning });
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
process.exit(code);
