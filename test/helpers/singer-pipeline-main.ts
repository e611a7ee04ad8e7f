// runPipeline (singer-pipeline.ts) as a process of its own, for a test that kills the runner with
// its tap and target (kill -9 of the process group): the options as JSON on stdin (callbacks
// cannot cross), the result as JSON on stdout. singer-pipeline-process.ts builds and starts it.
import { text } from 'node:stream/consumers';
import { runPipeline, type PipelineOptions } from './singer-pipeline.js';

const opts = JSON.parse(await text(process.stdin)) as PipelineOptions;
process.stdout.write(`${JSON.stringify(await runPipeline(opts))}\n`);
