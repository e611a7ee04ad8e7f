import type { z } from 'zod';
import type { Idempotency } from './retry-policy.js';

/**
 * How a repeat of a request behaves, which decides its retries: `safe` (a repeat has the same
 * effect: reads, upserts, adding a member again, removing one already gone), `unsafe` (a
 * repeat may act twice: retried only when the request provably never left), `keyed` (safe
 * when the body carries the key the API drops a repeat by, else unsafe).
 */
type Repeat = Idempotency | { keyedBy: string };

/** An export page: the rows of `data.<member>` go to a receiver as the answer streams in (src/http/page-reader.ts). */
export interface RowsAnswer {
  member: string;
  /** The schema each row must match. */
  row: () => z.ZodType<Record<string, unknown>>;
}

/** A query string's parameters; `undefined` ones are left out. */
export type Query = Record<string, string | number | undefined>;

/**
 * One endpoint of the spec: one row of the endpoint table (src/endpoints/endpoints.ts), which
 * the client sends by (`HttpClient.call`), `cnv api` retries by and the emulator serves by.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  /** The spec's path, `{name}` for each path parameter. */
  path: string;
  repeat: Repeat;
  /** Not enabled by default (spec, Authentication 5): 403 export_not_enabled for an account without it. */
  gated: boolean;
  /**
   * Page size bounds of a list or an export (`limit`; the API clamps values outside them), and its
   * default where the spec says.
   */
  page?: { min: number; max: number; default?: number };
  /** Items one request carries (a batch endpoint). */
  items?: { min: number; max: number };
  /** What a success answer holds and what the call returns of it. */
  answer:
    | {
        /** `campaign` of `{ data: { campaign } }`; left out, the call returns `data` itself. */
        member?: string;
        /** The schema of that member (or of `data`), made on first use (src/lib/once.ts). */
        schema: () => z.ZodType;
        /** The answer carries `pagination.nextCursor`: the call returns `{ items, nextCursor }`. */
        paginated?: boolean;
      }
    | RowsAnswer;
  /** The types of what a call sends (`body<T>()`, `query<T>()`); a type only, nothing at run time. */
  sends?: { body: unknown } | { query: object };
}

/** A row's `sends` for a request body of type T (a type only: its value is undefined). */
export const body = <T>() => undefined as unknown as { body: T };

/** A row's `sends` for query parameters of type T (a type only: its value is undefined). */
export const query = <T extends object>() => undefined as unknown as { query: T };

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** `params` with each `{name}` of the path, or none for a path without any. */
type ParamsInput<P extends string> = [ParamNames<P>] extends [never]
  ? { params?: undefined }
  : { params: Record<ParamNames<P>, string> };

/** What a call of the endpoint takes: its path parameters, what its row says it sends, and a signal. */
export type CallInput<E extends Endpoint> = ParamsInput<E['path']> &
  (E extends { sends: infer S } ? S : { body?: undefined; query?: undefined }) & { signal?: AbortSignal };

/** One page of a list: its items and the cursor of the next page (null after the last). */
export interface Page<T> {
  items: T;
  nextCursor: string | null;
}

type Made<F> = F extends () => infer S ? (S extends z.ZodType ? z.output<S> : never) : never;

/** What a call of the endpoint resolves to: the member of `data` its row names, checked by its schema. */
export type CallResult<E extends Endpoint> = E['answer'] extends { schema: infer F; paginated: true }
  ? Page<Made<F>>
  : E['answer'] extends { schema: infer F }
    ? Made<F>
    : never;

/**
 * The request a call sends (and a `--dry-run` shows): the row's method, its path filled in, the
 * query and body given, its retries.
 */
export function requestOf<E extends Endpoint>(endpoint: E, input: CallInput<E>) {
  const given = input as { params?: Record<string, string>; query?: Query; body?: unknown; signal?: AbortSignal };
  return {
    method: endpoint.method,
    path: pathOf(endpoint, given.params),
    query: given.query,
    body: given.body,
    idempotency: idempotencyOf(endpoint, given.body),
    signal: given.signal,
  };
}

/** The path of an endpoint with its parameters filled in, each encoded as one path segment; a missing or empty one is refused. */
export function pathOf(endpoint: Pick<Endpoint, 'path'>, params: Record<string, string> = {}): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    // A bug of the caller, never the user's: an empty segment would name another endpoint.
    if (value === undefined || value === '') throw new Error(`${endpoint.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
}

/** How a request to an endpoint may be retried, given its body (a keyed repeat is safe only with its key). */
export function idempotencyOf(endpoint: Pick<Endpoint, 'repeat'>, body?: unknown): Idempotency {
  const { repeat } = endpoint;
  if (typeof repeat === 'string') return repeat;
  const key = (body as Record<string, unknown> | null | undefined)?.[repeat.keyedBy];
  return typeof key === 'string' && key !== '' ? 'safe' : 'unsafe';
}
