import type { RecordInput, RecordResult } from '../endpoints/records.js';
import type { Prepared } from '../batch/file-run.js';
import { isRefusal, type ItemOutcome } from '../batch/types.js';
import type { PreparedRecord, RowProblem } from './prepare.js';

const PROBLEM_CODES: Record<RowProblem['kind'], string> = {
  key: 'missing_identifier',
  shape: 'invalid_request',
  unknown: 'invalid_field',
  'read-only': 'invalid_field',
  type: 'invalid_field',
};

/** A prepared record as the batch engine takes it: the payload, or the row's problems as one invalid outcome. */
export function toFileRow(prepared: PreparedRecord): Prepared<RecordInput> {
  if (prepared.ok) return { identifier: prepared.record.clientDedupKey, payload: prepared.record };
  return {
    identifier: prepared.clientDedupKey ?? '',
    invalid: {
      error: PROBLEM_CODES[prepared.problems[0].kind],
      message: prepared.problems.map((p) => p.reason).join('; '),
    },
  };
}

/**
 * One record's API result as a report outcome: CREATE -> created, UPDATE (or any other
 * operation, named in the message) -> updated; relationships left pending are named in the
 * message; a failed result keeps the API's code and message.
 */
export function recordOutcome(result: RecordResult | undefined): ItemOutcome {
  if (!result)
    return { status: 'failed', error: 'no_result', message: 'the API answered without a result for this record' };
  if (!result.success) {
    const error = typeof result.error === 'string' ? result.error : (codeOf(result.error) ?? 'failed');
    return {
      status: 'failed',
      error,
      message: result.message ?? messageOf(result.error) ?? 'the API refused this record',
      refusal: isRefusal(error),
    };
  }
  const operation = result.operation?.toUpperCase();
  const notes: string[] = [];
  if (operation && operation !== 'CREATE' && operation !== 'UPDATE') notes.push(`operation ${result.operation}`);
  const pending = result.pendingRelationships ?? [];
  if (pending.length > 0) notes.push(`pending relationships (target not found yet): ${pending.join(', ')}`);
  return {
    status: operation === 'CREATE' ? 'created' : 'updated',
    ...(result.id ? { id: result.id } : {}),
    ...(notes.length ? { message: notes.join('; ') } : {}),
  };
}

// Another server might nest the failure as { error: { code, message } }.
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string | undefined {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}
