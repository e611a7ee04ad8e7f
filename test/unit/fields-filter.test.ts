import { describe, expect, it } from 'vitest';
import { isFieldOfCustomObject } from '../../src/endpoints/fields.js';
import { pageSize } from '../../src/cmdutil/parse.js';

const CO = 'c0000000-0000-4000-8000-000000000001';
const def = (extra: Record<string, unknown>) => ({
  key: 'k',
  label: 'K',
  objectType: 'CUSTOM_OBJECT',
  dataType: 'STRING',
  ...extra,
});

describe('isFieldOfCustomObject (client-side filter: the spec names no customObjectId parameter)', () => {
  it('keeps the fields of this custom object, in any case of id and object type', () => {
    expect(isFieldOfCustomObject(def({ customObjectId: CO }), CO)).toBe(true);
    expect(isFieldOfCustomObject(def({ customObjectId: CO.toUpperCase(), objectType: 'custom_object' }), CO)).toBe(
      true,
    );
  });
  it("drops another custom object's fields and other object types (a server that ignores objectType)", () => {
    expect(isFieldOfCustomObject(def({ customObjectId: 'c0000000-0000-4000-8000-000000000002' }), CO)).toBe(false);
    expect(isFieldOfCustomObject(def({ objectType: 'CONTACT' }), CO)).toBe(false);
  });
  it('keeps a CUSTOM_OBJECT item that does not say which custom object it belongs to (keys are unique in the account)', () => {
    expect(isFieldOfCustomObject(def({}), CO)).toBe(true);
  });
});

describe('pageSize', () => {
  it('clamps whole numbers into the range and refuses anything else', () => {
    const parse = pageSize(1, 100);
    expect([parse('0'), parse('-3'), parse('50'), parse('101'), parse(' 7 ')]).toEqual([1, 1, 50, 100, 7]);
    expect(() => parse('1.5')).toThrow(/whole number/);
    expect(pageSize(1)('999999')).toBe(999999);
  });
});
