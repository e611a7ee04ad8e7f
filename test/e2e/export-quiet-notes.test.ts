import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../src/emulator/seed/fixtures.js';
import { BIN, cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The README's cron lines: `cnv export ... --quiet 2>>log`. --quiet drops the progress and the
// summary, never what the account's fields did to the file: a relabel, a new field, a deleted
// one, values sent to _extra each leave one line in the log, naming the export and the field.

const fx = useEmulator();

describe('--quiet 2>>log keeps the notes about the account fields (binary, through a shell)', () => {
  it('a relabel, a new field with a value in _extra and a deleted field: one line each per file, naming it and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cnv-quiet-'));
    const env = cleanEnv({ ...fx.env, CNV_CONFIG_DIR: tempConfigDir() });
    const log = join(dir, 'cnv-export.log');
    const files = {
      csv: join(dir, 'contacts.csv'),
      ndjson: join(dir, 'contacts.ndjson'),
      key: join(dir, 'by-key.csv'),
    };
    const cron = async () => {
      for (const line of [
        `node ${BIN} export contacts --out ${files.csv} --quiet 2>>${log}`,
        `node ${BIN} export contacts --out ${files.ndjson} --quiet 2>>${log}`,
        `node ${BIN} export contacts --out ${files.key} --fields-by key --quiet 2>>${log}`,
      ]) {
        const res = await execa('sh', ['-c', line], { env, extendEnv: false, reject: false });
        expect(res.exitCode, line).toBe(0);
      }
    };
    await cron();
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe(''); // nothing to say: no summary, no progress

    await fx.admin('POST', '/_emulator/fields/city', { label: 'Town' });
    await fx.api('POST', '/v2/fields', { key: 'tier', label: 'Tier', objectType: 'CONTACT', dataType: 'STRING' });
    await fx.api('POST', '/v2/contacts', { email: FIXTURE_CONTACTS.ada.email, fields: { tier: 'Gold' } });
    await fx.admin('POST', '/_emulator/fields/vip/delete?business=acme&objectType=CONTACT');
    await cron();

    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(line).toMatch(/^(note|warning): /);
    expect(lines.join('\n')).not.toMatch(/export contacts complete/); // the summary stays quiet
    const of = (file: string) => lines.filter((l) => l.includes(`${file}`));
    // Each file: the relabel, the new field, the deleted field; each CSV: the value in _extra.
    for (const file of Object.values(files)) {
      const mine = of(file);
      expect(
        mine.filter((l) => /field city relabelled "City" -> "Town"/.test(l)),
        file,
      ).toHaveLength(1);
      expect(
        mine.filter((l) => /new field tier/.test(l)),
        file,
      ).toHaveLength(1);
      expect(
        mine.filter((l) => /field vip no longer exists/.test(l)),
        file,
      ).toHaveLength(1);
      const extra = mine.filter((l) => /_extra/.test(l) && /1 value/.test(l));
      expect(extra, file).toHaveLength(file === files.ndjson ? 0 : 1);
      if (file !== files.ndjson) expect(extra[0]).toMatch(/fields\.Tier/);
    }
    expect(lines).toHaveLength(3 * 3 + 2);
  });
});
