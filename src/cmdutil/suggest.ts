export { didYouMean, guessText, suggest } from '../lib/did-you-mean.js';

/** Marks the start of a hint inside a parser's error message (commander keeps only the message). */
export const HINT_MARK = '\nhint: ';
