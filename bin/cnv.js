#!/usr/bin/env node
// The launcher: the only place that touches process exit. CommonJS (bin/package.json), as is
// everything a run loads before the command: an ES module would start Node's ES module loader,
// a few milliseconds of every run (external packages that are ES modules load it when needed).
'use strict';

async function main() {
  const argv = process.argv.slice(2);
  // A TAB: answered from the completion table, without loading the program.
  if (argv[0] === '__complete') {
    const { completeFast } = require('../dist/bundle/complete-fast.cjs');
    if (await completeFast(argv.slice(1), process.env, process.stdout)) process.exit(0);
  }
  const { launchAnswer, loadBundle, tuneEngine } = require('../dist/bundle/launcher.cjs');
  // `--version`, and `--help` into a pipe: written at build time, printed without the program.
  const answer = launchAnswer(argv, Boolean(process.stdout.isTTY), require('node:path').join(__dirname, '../dist/bundle/launch.json'));
  if (answer !== undefined) {
    process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 141 : 1));
    await new Promise((resolve) => process.stdout.write(answer, resolve));
    process.exit(0);
  }
  // V8 flags first: the code cache of the CLI bundle is valid only under the flags it was made with.
  tuneEngine(process.env);
  const bundle = loadBundle(require('node:path').join(__dirname, '../dist/bundle/cnv.cjs'), process.env, argv, (specifier) => import(specifier));
  const { run, applyRuntime, beforeEngineFlagsChange, InterruptedError, OutputClosedError } = bundle.cli;
  // An export changes V8's flags for its heap: what it compiled until then is saved first.
  beforeEngineFlagsChange(() => bundle.saveCache(0));

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
  // SIGINT/SIGTERM are theirs alone. CNV_RUNTIME_TUNING=off leaves out the optional tuning; what
  // a command may tune later (an export's heap) goes to run() as `tuning`, and only from here.
  const tuning = applyRuntime(process.env);
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
    tuning,
  });
  process.exitCode = code;
  // Flush what is still buffered for pipes, then leave at once: undici's idle sockets would
  // otherwise hold the process for another ~100 ms while they wind down.
  const flush = (stream) => new Promise((resolve) => (stream.destroyed ? resolve() : stream.write('', resolve)));
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  // What this run compiled, for the next run of the command (once: a run that found a cache keeps it).
  bundle.saveCache(code);
  process.exit(code);
}

main();
