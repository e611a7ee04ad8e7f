import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('the Node.js minimum', () => {
  it('README states the one package.json engines names', () => {
    const engines = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    const minimum = /^>=(\d+\.\d+\.\d+)$/.exec(engines)?.[1];
    expect(minimum, engines).toBeDefined();
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const stated = [...readme.matchAll(/Node\.js (\d+(?:\.\d+)*) or newer/g)].map((m) => m[1]);
    expect(stated).toEqual([minimum]);
  });
});
