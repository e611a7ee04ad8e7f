import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';

const fx = useEmulator();

describe('contacts get against a mocked API (in-process)', () => {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const env = { CNV_BASE_URL: 'https://api.test', CNV_API_KEY: 'sk_live_mock_0123456789' };

  it('an empty 200 answer is treated as no match (exit 5)', async () => {
    agent
      .get('https://api.test')
      .intercept({ path: '/v2/contacts?email=ghost%40example.com', method: 'GET' })
      .reply(200, { data: { contact: null } });
    const res = await cnvInProcess(['contacts', 'get', '--email', 'ghost@example.com'], {
      env: { ...env, CNV_CONFIG_DIR: fx.configDir },
      dispatcher: agent,
    });
    expect(res.exitCode).toBe(5);
    expect(res.stderr).toMatch(/no contact matches email ghost@example.com/);
  });

  it('a response that breaks the contract is a clear error, not a crash', async () => {
    agent
      .get('https://api.test')
      .intercept({ path: '/v2/contacts', method: 'POST' })
      .reply(200, { data: { contactCreated: 'yes' } });
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'a@example.com'], {
      env: { ...env, CNV_CONFIG_DIR: fx.configDir },
      dispatcher: agent,
    });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(
      /^error: invalid_response: unexpected response from POST \/v2\/contacts: data\.cnvContactId/m,
    );
  });

  it('the request carries the key and JSON content type', async () => {
    agent
      .get('https://api.test')
      .intercept({
        path: '/v2/events',
        method: 'POST',
        headers: { 'x-api-key': 'sk_live_mock_0123456789', 'content-type': 'application/json' },
      })
      .reply(200, (opts) => {
        const body = JSON.parse(String(opts.body));
        return { data: { cnvEventId: 'e1', cnvContactId: 'c1', echoedClientEventId: body.clientEventId } };
      });
    const res = await cnvInProcess(['events', 'track', '--event', 'x', '--email', 'a@example.com'], {
      env: { ...env, CNV_CONFIG_DIR: fx.configDir },
      dispatcher: agent,
    });
    expect(res.exitCode).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.clientEventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.echoedClientEventId).toBe(out.clientEventId);
  });
});
