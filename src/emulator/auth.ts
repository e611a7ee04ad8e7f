import { EmulatorError } from './error-answer.js';
import { lookupKey, type KeyInfo, type Permission } from './keys.js';

/** Resolves the X-API-Key header to a key; throws the spec's two 401 answers. */
export function authenticate(header: string | string[] | undefined): KeyInfo {
  const raw = Array.isArray(header) ? header[0] : header;
  const key = raw?.trim();
  if (!key) throw new EmulatorError(401, 'unauthorized', 'API key is required');
  const info = lookupKey(key);
  if (!info) throw new EmulatorError(401, 'unauthorized', 'API key is invalid');
  return info;
}

/** 403 export_not_enabled unless the key's account has the gated endpoints enabled. */
export function assertEnabled(key: KeyInfo): void {
  if (!key.gatedEnabled) {
    throw new EmulatorError(403, 'export_not_enabled', 'This endpoint is not enabled for your account');
  }
}

/** 403 forbidden unless the key holds the permission. */
export function assertPermission(key: KeyInfo, permission: Permission): void {
  if (!key.permissions.has(permission)) {
    throw new EmulatorError(403, 'forbidden', `API key lacks the ${permission} permission`);
  }
}
