import { describe, expect, it } from 'vitest';
import { cnvInProcess, tempConfigDir } from '../../helpers/cli.js';

describe('cnv config (in-process)', () => {
  it('set-url refuses plain http to a remote host', async () => {
    const res = await cnvInProcess(['config', 'set-url', 'http://api.example.com'], {
      env: { CNV_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.exitCode).toBe(2);
  });
});
