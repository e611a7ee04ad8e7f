import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';

describe('help and version', () => {
  it('cnv version prints the version; --json adds node and platform', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect((await cnvInProcess(['version'])).stdout).toBe(`${pkg.version}\n`);
    const json = JSON.parse((await cnvInProcess(['version', '--json'])).stdout);
    expect(json).toEqual({
      version: pkg.version,
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
    });
  });
});
