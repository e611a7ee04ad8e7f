import { StringDecoder } from 'node:string_decoder';
import { ResponseShapeError } from '../errors.js';
import { JsonRowSplitter, JsonSyntaxError, JsonTooLargeError } from '../lib/json-rows.js';
import { declaredLength } from './body.js';
import { BODY_LIMITS, MAX_DEPTH } from '../limits/limits.js';
import type { RowsAnswer } from './endpoint.js';
import { describeIssues, envelopeSchema, isEnvelope, rowsData } from './envelope.js';
import { describeBody } from './foreign.js';
import { notTheApi, tooLarge } from './failures.js';
import type { Success } from './transport.js';
import type { KeyWatch } from '../redact/redact.js';

/** Takes the rows of one attempt at a page, then makes the caller's page of them. */
export interface RowReceiver<P> {
  /** `text`: the row's own JSON text as the server sent it (the key masked), from `{` to `}`. */
  row(row: Record<string, unknown>, text: string): void;
  end(nextCursor: string | null): P;
}

/** An error met while reading a success answer that is not the connection's: never retried. */
export class NotRetried {
  constructor(readonly error: unknown) {}
}

/**
 * Reads an export page, `{ data: { <member>: [row, …] }, pagination: { nextCursor } }`, as it
 * streams: each row, checked against its schema, goes to `rows` with its own text (the key
 * masked in it, `watch`), so a page of thousands of rows is never held whole; the envelope around
 * the rows is validated as a whole answer's is, and its cursor given to `rows.end` as the server
 * sent it, through `cursor` (the client's seal: src/http/cursor-seal.ts). Only the body stream's own failures (a connection
 * lost mid-page) are worth a retry; anything the reading throws ends the request (NotRetried).
 */
export async function readRowsPage<P>(
  answer: Success,
  spec: RowsAnswer,
  rows: RowReceiver<P>,
  keys: { watch: KeyWatch | undefined; cursor: (raw: string) => string },
): Promise<P> {
  const { target, status, headers } = answer;
  const shape = (detail: string) =>
    new ResponseShapeError(target.redact(`unexpected response from ${target.label}: ${detail}`));
  const row = spec.row();
  const { watch } = keys;
  // Whether a piece read since the last row ended may hold the key (and the piece being read).
  let pending = false;
  let current = false;
  const splitter = new JsonRowSplitter(
    spec.member,
    (value, index, text) => {
      if (watch && pending) {
        const masked = watch.mask(text);
        if (masked !== text) [value, text] = [JSON.parse(masked) as Record<string, unknown>, masked];
        pending = current;
      }
      const checked = row.safeParse(value);
      if (!checked.success) throw shape(describeIssues(checked.error, 3, `data.${spec.member}.${index}`));
      rows.row(value, text);
    },
    (index) => {
      throw shape(`data.${spec.member}.${index}: expected an object`);
    },
    { maxHeld: BODY_LIMITS.rowBytes, maxDepth: MAX_DEPTH, maxAround: BODY_LIMITS.aroundBytes },
  );
  // The opening of the answer, to describe it if it is not JSON.
  let head = '';
  const settle = <T>(work: () => T): T => {
    try {
      return work();
    } catch (err) {
      if (err instanceof JsonSyntaxError) {
        // A page that began as a JSON object broke on the way (the API's, cut or corrupted);
        // anything else (an HTML page) was never the API's.
        if (head.trimStart().startsWith('{')) throw shape(`the body is not JSON (${err.message})`);
        throw notTheApi(
          target,
          `${target.label} answered ${status} with ${describeBody(head, headers)}, not JSON (${err.message})`,
          status,
        );
      }
      if (err instanceof JsonTooLargeError)
        throw tooLarge(target, BODY_LIMITS.rowBytes, err.message, err.message.startsWith('row '));
      throw new NotRetried(err);
    }
  };
  for await (const text of pageText(answer)) {
    if (head.length < 512) head += text.slice(0, 512);
    current = watch?.mayHold(text) ?? false;
    pending ||= current;
    settle(() => splitter.write(text));
  }
  const doc = settle(() => splitter.end());
  if (!isEnvelope(doc, 'data'))
    throw notTheApi(
      target,
      `${target.label} answered ${status} with ${describeBody(JSON.stringify(doc), headers)}`,
      status,
    );
  const parsed = envelopeSchema(rowsData(spec.member), true).safeParse(doc);
  if (!parsed.success) throw shape(describeIssues(parsed.error));
  const next = parsed.data.pagination?.nextCursor;
  return settle(() => rows.end(typeof next === 'string' ? keys.cursor(next) : null));
}

/**
 * The body's text as it arrives, within the page's size limit. Decoded here, not with setEncoding
 * (which undici's mock bodies ignore): a character may be cut between two chunks.
 */
async function* pageText(answer: Success): AsyncGenerator<string> {
  const limit = BODY_LIMITS.pageBytes;
  if ((declaredLength(answer.headers) ?? 0) > limit) throw tooLarge(answer.target, limit);
  const decoder = new StringDecoder('utf8');
  let size = 0;
  for await (const chunk of answer.body) {
    const decoded = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    size += (chunk as { length: number }).length;
    if (size > limit) throw tooLarge(answer.target, limit);
    yield decoded;
  }
  yield decoder.end();
}
