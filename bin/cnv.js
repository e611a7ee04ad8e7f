#!/usr/bin/env node
// The launcher: the only place that touches process exit.
const argv = process.argv.slice(2);
// A TAB: answered from the completion table, without loading the program.
if (argv[0] === '__complete') {
  const { completeFast } = await import('../dist/bundle/complete-fast.js');
  if (await completeFast(argv.slice(1), process.env, process.stdout)) process.exit(0);
}
const { run, applyRuntime } = await import('../dist/bundle/main.js');
const { InterruptedError, OutputClosedError } = await import('../dist/bundle/errors.js');

const controller = new AbortController();
let signals = 0;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // A second Ctrl-C means "now".
    if (++signals > 1) process.exit(signal === 'SIGTERM' ? 143 : 130);
    controller.abort(new InterruptedError(signal));
  });
}
// The process-wide side effects (src/runtime), once the listeners above are there: from now on
// SIGINT/SIGTERM are theirs alone. CNV_RUNTIME_TUNING=off leaves out the optional tuning.
applyRuntime(process.env);
// The reader went away (`| head`, also `2>&1 | head` for stderr): stop quietly, exit 141.
// Without a listener an EPIPE on stderr would be an uncaught error, exit 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') controller.abort(new OutputClosedError());
  });
}

const code = await run(argv, {
  io: {
    // stdin is made on first use: creating the stream costs a few ms most commands never need.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
  },
  env: process.env,
  signal: controller.signal,
});
process.exitCode = code;
// Flush what is still buffered for pipes, then leave at once: undici's idle sockets would
// otherwise hold the process for another ~100 ms while they wind down.
const flush = (stream) => new Promise((resolve) => (stream.destroyed ? resolve() : stream.write('', resolve)));
await Promise.all([flush(process.stdout), flush(process.stderr)]);
process.exit(code);
