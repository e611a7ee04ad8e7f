import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipMember, gzipName } from '../../src/exporter/gzip-pages.js';

describe('gzip pages', () => {
  it('members appended one after another read back as the pages in order, with gunzip, Python and zlib', async () => {
    const pages = [['{"a":1}\n', '{"a":2}\n'], ['{"a":"é ☃"}\n'], ['{"a":4}\n']];
    const members = await Promise.all(
      pages.map((p) =>
        gzipMember(
          p.map((s) => Buffer.from(s)),
          Buffer.byteLength(p.join('')),
        ),
      ),
    );
    const file = join(mkdtempSync(join(tmpdir(), 'cnv-gz-')), 'out.ndjson.gz');
    writeFileSync(file, Buffer.concat(members));
    const expected = pages.flat().join('');
    expect(gunzipSync(Buffer.concat(members)).toString('utf8')).toBe(expected);
    execFileSync('gunzip', ['-t', file]);
    expect(execFileSync('gunzip', ['-c', file]).toString('utf8')).toBe(expected);
    const py = execFileSync('python3', [
      '-c',
      'import gzip,sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())',
      file,
    ]).toString('utf8');
    expect(py).toBe(expected);
    // Cut back to a member boundary (what a resumed run does to an uncommitted tail): still whole.
    writeFileSync(file, Buffer.concat(members.slice(0, 2)));
    execFileSync('gunzip', ['-t', file]);
    expect(gunzipSync(Buffer.concat(members.slice(0, 2))).toString('utf8')).toBe(pages.slice(0, 2).flat().join(''));
  });

  it('tells a .gz name and its inner format', () => {
    expect(gzipName('/data/contacts.ndjson.gz')).toEqual({ gzip: true, inner: '/data/contacts.ndjson' });
    expect(gzipName('/data/contacts.CSV.GZ')).toEqual({ gzip: true, inner: '/data/contacts.CSV' });
    expect(gzipName('/data/contacts.csv')).toEqual({ gzip: false, inner: '/data/contacts.csv' });
  });
});
