import { describe, expect, it } from 'vitest';
import { Router } from '../../src/emulator/router.js';

describe('Router', () => {
  const ok = (tag: string) => () => ({ body: tag });
  const router = new Router<unknown>()
    .add('GET', '/v2/campaigns/:campaignId', ok('one'))
    .add('POST', '/v2/campaigns/:campaignId/contacts', ok('add'))
    .add('POST', '/v2/fields/:id', ok('param'))
    .add('POST', '/v2/fields/relationships', ok('static'));

  it('extracts decoded params', () => {
    const m = router.match('GET', '/v2/campaigns/a%20b');
    expect(m.kind === 'found' && m.params).toEqual({ campaignId: 'a b' });
  });

  it('prefers literal segments over params', () => {
    const m = router.match('POST', '/v2/fields/relationships');
    expect(m.kind === 'found' && m.route.pattern).toBe('/v2/fields/relationships');
  });

  it('distinguishes 405 from 404 and ignores trailing slashes', () => {
    expect(router.match('DELETE', '/v2/campaigns/x')).toEqual({
      kind: 'method_not_allowed',
      pattern: '/v2/campaigns/:campaignId',
      allowed: ['GET'],
    });
    expect(router.match('GET', '/v2/campaigns/x/y/z').kind).toBe('not_found');
    expect(router.match('GET', '/v2/campaigns/x/').kind).toBe('found');
  });
});

describe('errorResult', () => {
  it('maps EmulatorError to its status and an unexpected error to a logged 500 internal_error', async () => {
    const { errorResult } = await import('../../src/emulator/http-io.js');
    const { EmulatorError } = await import('../../src/emulator/error-answer.js');
    const lines: string[] = [];
    const known = errorResult(new EmulatorError(429, 'rate_limited', 'slow down', { 'retry-after': '1' }), (l) =>
      lines.push(l),
    );
    expect(known).toEqual({
      status: 429,
      body: { error: { code: 'rate_limited', message: 'slow down' } },
      headers: { 'retry-after': '1' },
    });
    expect(lines).toEqual([]);
    const bug = errorResult(new TypeError('boom'), (l) => lines.push(l));
    expect(bug).toEqual({ status: 500, body: { error: { code: 'internal_error', message: 'Internal server error' } } });
    expect(lines[0]).toContain('boom');
  });
});
