import { createRequire } from 'node:module';

/** cnv's version, from package.json. */
export const VERSION: string = createRequire(import.meta.url)('../../package.json').version;

/** The version with the runtime it runs on (`cnv version --json`, bug reports). */
export function versionInfo(): { version: string; node: string; platform: string } {
  return { version: VERSION, node: process.versions.node, platform: `${process.platform}-${process.arch}` };
}
