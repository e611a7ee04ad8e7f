/**
 * Sets `target[key] = value` as an own, enumerable member, whatever the key: a key "__proto__"
 * (a label or field key from user data) becomes a member as JSON.parse makes it, never the
 * object's prototype, where a plain assignment would lose it.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
