import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointOf } from '../../src/endpoints/endpoints.js';
import { idempotencyOf, pathOf, type Endpoint } from '../../src/http/endpoint.js';
import { apiIdempotency } from '../../src/commands/api/idempotency.js';
import { GATED_PROBES } from '../../src/commands/doctor/probes.js';
import { buildApiRouter } from '../../src/emulator/routes/index.js';

// The one endpoint table (src/endpoints/endpoints.ts): the client sends by it, `cnv api` retries by it,
// the emulator serves and gates by it, and doctor probes every gated endpoint it names.
const all: Array<[string, Endpoint]> = Object.entries(ENDPOINTS);
const sample = (e: Endpoint) =>
  pathOf(e, Object.fromEntries([...e.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], 'id-1'])));
/** The router's pattern of a path of the table: `:name` for the spec's `{name}`. */
const routeOf = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

describe('the endpoint table', () => {
  it.each(all)('%s: the emulator serves it at its method and path, gated as the table says', (_name, endpoint) => {
    const found = buildApiRouter().match(endpoint.method, sample(endpoint));
    expect(found.kind).toBe('found');
    if (found.kind !== 'found') return;
    expect(found.route.pattern).toBe(routeOf(endpoint.path));
    expect(found.route.options.gated === true).toBe(endpoint.gated);
  });

  it('the emulator serves no /v2 route the table does not name', () => {
    const routes = (buildApiRouter() as unknown as { routes: Array<{ method: string; pattern: string }> }).routes;
    const named = routes.filter((r) => r.pattern.startsWith('/v2/'));
    expect(named.map((r) => `${r.method} ${r.pattern}`).sort()).toEqual(
      all.map(([, e]) => `${e.method} ${routeOf(e.path)}`).sort(),
    );
  });

  it('doctor probes exactly the gated endpoints', () => {
    const probed = GATED_PROBES.map((p) => p.request({})).map((r) => endpointOf(r.method, r.path));
    expect(probed.every((e) => e?.gated)).toBe(true);
    expect(new Set(probed)).toEqual(new Set(all.map(([, e]) => e).filter((e) => e.gated)));
  });

  it('`cnv api` retries a named endpoint as the table says, and a path it does not name by its method', () => {
    for (const [, endpoint] of all)
      expect(apiIdempotency(endpoint.method, sample(endpoint), { clientEventId: 'e1' })).toBe(
        idempotencyOf(endpoint, { clientEventId: 'e1' }),
      );
    expect(apiIdempotency('GET', '/v2/forms', undefined)).toBe('safe');
    expect(apiIdempotency('POST', '/v2/contacts/x', {})).toBe('unsafe');
  });

  it('fills path parameters as one encoded segment each, and matches only whole segments', () => {
    expect(pathOf(ENDPOINTS.getForm, { formId: 'a/b c' })).toBe('/v2/forms/a%2Fb%20c');
    expect(() => pathOf(ENDPOINTS.getForm)).toThrow(/\{formId\}/);
    expect(() => pathOf(ENDPOINTS.getForm, { formId: '' })).toThrow(/\{formId\}/);
    expect(endpointOf('POST', '/v2/audiences//contacts')).toBeUndefined();
    expect(endpointOf('POST', '/v2/audiences/x/contacts/batch')).toBe(ENDPOINTS.batchAddToAudience);
    expect(endpointOf('post', '/v2/contacts')).toBeUndefined();
  });
});
