#!/usr/bin/env node
// The launcher: the only place that touches process exit. CommonJS (bin/package.json), as is
// everything a run loads before the command: an ES module would start Node's ES module loader,
// a few milliseconds of every run (external packages that are ES modules load it when needed).
'use strict';

// A run ends when run() returns its exit code (or an answer is printed), and the launcher exits
// with that code. Until then the exit code is 1: a process that ends any other way (its event
// loop ran out of things to wait for while the run still awaited a promise nothing will settle)
// never looks like a success, and says so.
process.exitCode = 1;
let ended = false;
process.once('beforeExit', () => {
  if (ended) return;
  process.stderr.write(
    'error: internal: the run stopped before its end, with nothing left to wait for (no result, no summary)\n' +
      'hint: this is a bug in cnv; run again with --debug (stack trace and requests, key redacted) and report it with that output\n',
  );
});

async function main() {
  const argv = process.argv.slice(2);
  // A TAB: answered from the completion table, without loading the program.
  if (argv[0] === '__complete') {
    const { completeFast } = require('../dist/bundle/complete-fast.cjs');
    if (await completeFast(argv.slice(1), process.env, process.stdout)) {
      ended = true;
      process.exit(0);
    }
  }
  const { launchAnswer, printAnswer, loadBundle, tuneEngine } = require('../dist/bundle/launcher.cjs');
  // `--version`, and `--help` into a pipe: written at build time, printed without the program.
  const answer = launchAnswer(
    argv,
    Boolean(process.stdout.isTTY),
    require('node:path').join(__dirname, '../dist/bundle/launch.json'),
  );
  if (answer !== undefined) {
    const code = await printAnswer(answer, process.stdout, process.stderr);
    ended = true;
    process.exit(code);
  }
  // V8 flags first: the code cache of the CLI bundle is valid only under the flags it was made with.
  tuneEngine(process.env);
  const bundle = loadBundle(
    require('node:path').join(__dirname, '../dist/bundle/cnv.cjs'),
    process.env,
    argv,
    (specifier) => import(specifier),
  );
  const { run, applyRuntime, beforeEngineFlagsChange, InterruptedError, stdoutError } = bundle.cli;
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
  // Without a listener an EPIPE on stderr would be an uncaught error, exit 1. stdout that cannot
  // be written (`> /dev/full`) stops the run too: exit 8 naming stdout (src/errors.ts).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err.code === 'EPIPE' || stream === process.stdout) controller.abort(stdoutError(err));
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
      pagerAllowed: true,
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
  ended = true;
  process.exit(code);
}

main();
