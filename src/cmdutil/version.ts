import { createRequire } from 'node:module';

/** Set by scripts/bundle.mjs in the bundle (package.json's version); undefined when run from dist/ or src/. */
declare const CNV_BUNDLED_VERSION: string | undefined;

/** cnv's version, from package.json (in the bundle, written into it at build time: no file to read at start-up). */
export const VERSION: string =
  typeof CNV_BUNDLED_VERSION === 'string'
    ? CNV_BUNDLED_VERSION
    : createRequire(import.meta.url)('../../package.json').version;

/** The version with the runtime it runs on (`cnv version --json`, bug reports). */
export function versionInfo(): { version: string; node: string; platform: string } {
  return { version: VERSION, node: process.versions.node, platform: `${process.platform}-${process.arch}` };
}

/** The User-Agent of every request: `cnv/0.1.0 node/20.20.2 (linux-x64)`, so a server's log names the client and its runtime. */
export function userAgent(): string {
  const { version, node, platform } = versionInfo();
  return `cnv/${version} node/${node} (${platform})`;
}
