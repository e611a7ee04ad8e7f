import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { targetConfig } from '../../src/target/target-config.js';

const base = { base_url: 'https://api.example.com', api_key: 'sk_live_k1_secretsecretsecret' };

describe('targetConfig (the --config of target-cnv)', () => {
  it('an unknown setting is warned of by name and ignored; a null setting is no setting', () => {
    const warnings: string[] = [];
    const config = targetConfig({ ...base, max_retry: 3, plan: null, report_path: null }, 'c.json', (m) =>
      warnings.push(m),
    );
    expect(warnings).toEqual(['--config c.json: unknown setting max_retry: ignored (settings: `target-cnv --about`)']);
    expect(config).toMatchObject({ plan: false, reportPath: undefined, baseUrl: base.base_url });
  });

  it('a document that is not an object of settings, or a bad value, is exit 2 naming the file', () => {
    const warn = () => {};
    for (const doc of [[], 'x', null]) {
      const err = (() => {
        try {
          return targetConfig(doc, 'c.json', warn);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe(
        '--config c.json: not a config of target-cnv (a JSON object of settings)',
      );
    }
    expect(() => targetConfig({ ...base, max_failed_rows: -1 }, 'c.json', warn)).toThrow(
      /--config c\.json: max_failed_rows/,
    );
  });
});
