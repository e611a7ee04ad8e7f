// What bin/cnv.js uses before the CLI is loaded, bundled on its own (dist/bundle/launcher.cjs).
export { tuneEngine } from './engine-flags.js';
export { launchAnswer, printAnswer } from './launch-answers.js';
export { loadBundle } from './load-bundle.js';
