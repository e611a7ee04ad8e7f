// The emulator's fixed API keys and what each may do.

/** Permissions the spec names for some operations. */
export type Permission = 'audience:edit' | 'fields:create' | 'customObjects:edit' | 'records:edit';

const ALL_PERMISSIONS: readonly Permission[] = ['audience:edit', 'fields:create', 'customObjects:edit', 'records:edit'];

/** The three demo keys, by role. */
export interface DemoKeys {
  /** Business "acme": gated endpoints enabled, every permission. */
  full: string;
  /** Business "basic": valid, but no gated endpoint enabled. */
  basic: string;
  /** Business "acme" (same data as full): gated endpoints enabled, no permissions. */
  limited: string;
}

/** What a valid key grants. */
export interface KeyInfo {
  keyId: string;
  businessId: string;
  /** Short human description, used by describeEmulator. */
  description: string;
  /** Whether the gated endpoints (Get contact, Create field, batch adds, exports) are enabled. */
  gatedEnabled: boolean;
  permissions: ReadonlySet<Permission>;
}

export const DEMO_KEYS: Readonly<DemoKeys> = Object.freeze({
  full: 'sk_live_demo_4f9c2a7e1b8d4e6f9a0c3b5d7e9f1a2c',
  basic: 'sk_live_basic_2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f0a',
  limited: 'sk_live_limited_8e1d3c5b7a9f0e2d4c6b8a0f1e3d5c7b',
});

export const BUSINESSES = [
  { id: 'acme', name: 'Acme Corp' },
  { id: 'basic', name: 'Basic Ltd' },
] as const;

const KEY_TABLE = new Map<string, KeyInfo>([
  [
    DEMO_KEYS.full,
    {
      keyId: 'demo',
      businessId: 'acme',
      description: 'business "acme", every endpoint enabled, all permissions',
      gatedEnabled: true,
      permissions: new Set(ALL_PERMISSIONS),
    },
  ],
  [
    DEMO_KEYS.limited,
    {
      keyId: 'limited',
      businessId: 'acme',
      description: 'business "acme", endpoints enabled, but no permissions (403 forbidden)',
      gatedEnabled: true,
      permissions: new Set(),
    },
  ],
  [
    DEMO_KEYS.basic,
    {
      keyId: 'basic',
      businessId: 'basic',
      description: 'business "basic", gated endpoints not enabled (403 export_not_enabled)',
      gatedEnabled: false,
      permissions: new Set(ALL_PERMISSIONS),
    },
  ],
]);

/** The grants of a key, or undefined when the key is unknown. */
export function lookupKey(key: string): KeyInfo | undefined {
  return KEY_TABLE.get(key);
}
