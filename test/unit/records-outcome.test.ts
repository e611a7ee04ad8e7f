import { describe, expect, it } from 'vitest';
import { recordOutcome, toFileRow } from '../../src/records/outcome.js';

describe('recordOutcome', () => {
  it('maps CREATE and UPDATE to created and updated, with the record id', () => {
    expect(recordOutcome({ success: true, id: 'r1', clientDedupKey: 'k', operation: 'CREATE' })).toEqual({
      status: 'created',
      id: 'r1',
    });
    expect(recordOutcome({ success: true, id: 'r1', clientDedupKey: 'k', operation: 'UPDATE' })).toEqual({
      status: 'updated',
      id: 'r1',
    });
  });

  it('names another operation and pending relationships in the message', () => {
    expect(recordOutcome({ success: true, id: 'r1', operation: 'NOOP', pendingRelationships: ['a', 'b'] })).toEqual({
      status: 'updated',
      id: 'r1',
      message: 'operation NOOP; pending relationships (target not found yet): a, b',
    });
  });

  it("keeps a failed result's code and message, flat or nested, and flags a missing result; a refusal of the values is told from a failure", () => {
    expect(recordOutcome({ success: false, clientDedupKey: 'k', error: 'invalid_field', message: 'bad' })).toEqual({
      status: 'failed',
      error: 'invalid_field',
      message: 'bad',
      refusal: true,
    });
    expect(recordOutcome({ success: false, error: { code: 'upsert_failed', message: 'nested' } })).toEqual({
      status: 'failed',
      error: 'upsert_failed',
      message: 'nested',
      refusal: false,
    });
    expect(recordOutcome(undefined)).toMatchObject({ status: 'failed', error: 'no_result' });
  });
});

describe('toFileRow', () => {
  it('turns a prepared record into a payload and problems into one invalid outcome', () => {
    expect(toFileRow({ ok: true, record: { clientDedupKey: 'k', fields: { a: 1 } } })).toEqual({
      identifier: 'k',
      payload: { clientDedupKey: 'k', fields: { a: 1 } },
    });
    expect(
      toFileRow({
        ok: false,
        problems: [
          { field: 'clientDedupKey', kind: 'key', reason: 'no key' },
          { field: 'x', kind: 'unknown', reason: 'unknown field "x"' },
        ],
      }),
    ).toEqual({
      identifier: '',
      invalid: { error: 'missing_identifier', message: 'no key; unknown field "x"' },
    });
  });
});
