/**
 * A value that does not parse, thrown by a flag's parser. `code` is the one commander gives its
 * own InvalidArgumentError and all it looks at, so commander words it like its own
 * (`option '--limit <n>' argument 'x' is invalid. ...`) while lib/ imports no package.
 */
export class InvalidValueError extends Error {
  readonly code = 'commander.invalidArgument';
  readonly exitCode = 1;
}

/** Parser for a whole number within bounds (a flag's value, as commander's argParser takes it). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    if (!/^-?\d+$/.test(text.trim())) throw new InvalidValueError(`expected a whole number, got "${text}"`);
    const n = Number(text);
    if (n < min || n > max) throw new InvalidValueError(`expected a number from ${min} to ${max}, got ${n}`);
    return n;
  };
}
