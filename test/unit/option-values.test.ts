import { describe, expect, it } from 'vitest';
import { CnvCommand } from '../../src/cli/cnv-command.js';
import { UsageError } from '../../src/errors.js';
import { looseJson } from '../../src/json/exact-json.js';
import { integer, InvalidValueError } from '../../src/lib/option-values.js';

describe('integer', () => {
  it('reads whole numbers within bounds', () => {
    expect(integer(1, 64)(' 8 ')).toBe(8);
    expect(() => integer(1, 64)('65')).toThrow(new InvalidValueError('expected a number from 1 to 64, got 65'));
    expect(() => integer(1)('1.5')).toThrow(new InvalidValueError('expected a whole number, got "1.5"'));
  });

  // lib/ imports no package: commander must still take its error for one of its own.
  it('is reported by commander as an invalid value naming the flag', () => {
    const program = new CnvCommand('cnv').option('--concurrency <n>', 'in flight', integer(1, 64));
    let caught: unknown;
    try {
      program.parse(['--concurrency', '0'], { from: 'user' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).code).toBe('invalid_value');
    expect((caught as UsageError).message).toBe('--concurrency: expected a number from 1 to 64, got 0');
  });
});

describe('looseJson', () => {
  it('parses JSON and keeps other text as it is', () => {
    expect(looseJson('42')).toBe(42);
    expect(looseJson('{"a":[1]}')).toEqual({ a: [1] });
    expect(looseJson('pro plan')).toBe('pro plan');
  });
});
