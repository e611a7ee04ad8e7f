import { isExactNumber } from '../lib/exact-number.js';

/** How a value in the file compares with the one the snapshot holds. */
type Verdict = 'same' | 'differs' | 'unsure';

/**
 * Compares a field's value as the API would store it (by the field's dataType) with the value
 * the export shows. `unsure` when the export's value is not one the type allows (it cannot be
 * read exactly), or when two spellings may or may not be stored alike (a DATETIME with the
 * same instant written otherwise). A value in the file that the type does not allow differs:
 * it is sent, and the API judges it.
 */
export function sameValue(dataType: string, stored: unknown, given: unknown): Verdict {
  const old = stored === undefined ? null : stored;
  if (given === null || old === null) return given === old ? 'same' : 'differs';
  switch (dataType) {
    case 'NUMBER':
      if (!isNumeric(old)) return 'unsure';
      if (!isNumeric(given)) return 'differs';
      // Two doubles are one number exactly when equal; an ExactNumber (digits a double cannot hold) by its digits.
      if (typeof old === 'number' && typeof given === 'number') return old === given ? 'same' : 'differs';
      return decimalKey(String(old)) === decimalKey(String(given)) ? 'same' : 'differs';
    case 'BOOLEAN':
      if (typeof old !== 'boolean') return 'unsure';
      return old === given ? 'same' : 'differs';
    case 'DATE':
    case 'DATETIME':
      if (typeof old !== 'string') return 'unsure';
      if (typeof given !== 'string') return 'differs';
      if (old === given) return 'same';
      // One instant spelled two ways (`...00Z` and `...00.000Z`): how the API stores it is not shown.
      return Date.parse(old) === Date.parse(given) && !Number.isNaN(Date.parse(old)) ? 'unsure' : 'differs';
    case 'STRING':
      if (typeof old !== 'string') return 'unsure';
      return old === given ? 'same' : 'differs';
    default:
      return typeof old === typeof given && old === given ? 'same' : 'unsure';
  }
}

function isNumeric(v: unknown): boolean {
  return (typeof v === 'number' && Number.isFinite(v)) || isExactNumber(v);
}

/**
 * A decimal number's value as text that two spellings of one number share (`1.50`, `1.5`,
 * `15e-1` -> `+15e-1`; `0`, `-0.0` -> `0`): digits without leading or trailing zeros, and the
 * power of ten of the last one. Exact: no digit is ever rounded.
 */
export function decimalKey(text: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return `?${text}`;
  const [, sign, whole = '', fraction = '', exponent = '0'] = m;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let power = BigInt(exponent) - BigInt(fraction.length);
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  power += BigInt(trailing);
  return `${sign === '-' ? '-' : '+'}${digits}e${power}`;
}
