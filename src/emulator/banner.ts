import type { DemoKeys } from './keys.js';

/** A few human lines about a running emulator: base URL, keys and a ready-to-paste export line. */
export function describeEmulator(emu: { url: string; keys: DemoKeys }): string {
  return [
    `cnv emulator listening on ${emu.url}  (API at ${emu.url}/v2, admin at ${emu.url}/_emulator)`,
    'API keys:',
    `  full     ${emu.keys.full}   business "acme": every endpoint enabled, all permissions`,
    `  limited  ${emu.keys.limited}   business "acme": endpoints enabled, no permissions (403 forbidden)`,
    `  basic    ${emu.keys.basic}   business "basic": gated endpoints not enabled (403 export_not_enabled)`,
    'Use it:',
    `  export CNV_BASE_URL=${emu.url} CNV_API_KEY=${emu.keys.full}`,
  ].join('\n');
}
