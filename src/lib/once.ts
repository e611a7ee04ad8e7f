/**
 * A value made on first use and kept. The endpoint table names a zod schema for every endpoint;
 * building them all costs a few milliseconds that a command sending one request would pay at
 * every start, so each schema is made by the first call that reads it.
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
