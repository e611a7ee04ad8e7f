/**
 * An API error answered as `{ error: { code, message } }` with the given HTTP status.
 * Route handlers throw it; the server turns it into the response.
 */
export class EmulatorError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'EmulatorError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The spec's failure body for an error. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** Shorthand for the frequent 400 invalid_request. */
export function invalidRequest(message: string): EmulatorError {
  return new EmulatorError(400, 'invalid_request', message);
}
