import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/campaigns/list.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `campaigns list`'s run alone: one page, every page (--all), a cursor, and the summary of a run that fails midway.
const campaign = (n: number) => ({
  id: `b100000${n}-0000-4000-8000-000000000000`, name: `Campaign ${n}`, type: { id: 't1', name: 'Webinar', systemType: 'CUSTOM' },
  memberCount: n, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
});
const COLUMNS = ['id', 'name', 'type.id', 'type.name', 'type.systemType', 'sfdcCampaignId', 'memberCount', 'createdAt', 'updatedAt'];

const f = useFakeContext();

describe('campaigns list: run', () => {
  it('one page: its rows as the list, and the next cursor as the trailer', async () => {
    f.api.on('GET', '/v2/campaigns', ok({ campaigns: [campaign(1), campaign(2)] }, 'c2'));
    expect(await run(f.ctx, { args: [], opts: {} })).toEqual({
      kind: 'list', rows: [campaign(1), campaign(2)], columns: COLUMNS, tableColumns: ['id', 'name', 'type.name', 'memberCount'], chosen: false,
      trailer: 'next page: --cursor c2 (or --all for every page)',
    });
  });

  it('--cursor and --limit are sent; the last page has no trailer', async () => {
    f.api.on('GET', '/v2/campaigns?limit=50&cursor=c2', ok({ campaigns: [campaign(3)] }, null));
    const result = await run(f.ctx, { args: [], opts: { cursor: 'c2', limit: 50 } });
    expect(result).toMatchObject({ kind: 'list', rows: [campaign(3)] });
    expect(result).not.toHaveProperty('trailer');
  });

  it('--all follows every cursor and streams the rows to stdout (one JSON array), returning nothing to print', async () => {
    f.api
      .on('GET', '/v2/campaigns', ok({ campaigns: [campaign(1)] }, 'c2'))
      .on('GET', '/v2/campaigns?cursor=c2', ok({ campaigns: [campaign(2)] }, 'c3'))
      .on('GET', '/v2/campaigns?cursor=c3', ok({ campaigns: [] }, null));
    expect(await run(f.ctx, { args: [], opts: { all: true } })).toEqual({ kind: 'none' });
    expect(JSON.parse(f.stdout())).toEqual([campaign(1), campaign(2)]);
  });

  it('--paginate --columns: the chosen members of each row; --summary-json names the page a failed run stopped at', async () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'cnv-list-')), 'page.json');
    f.api
      .on('GET', '/v2/campaigns', ok({ campaigns: [campaign(1)] }, 'c2'))
      .on('GET', '/v2/campaigns?cursor=c2', apiError(400, 'invalid_cursor', 'cursor expired'));
    await expect(run(f.ctx, { args: [], opts: { paginate: true, columns: 'id,memberCount', summaryJson: summary } })).rejects.toMatchObject({ exitCode: 3, code: 'invalid_cursor' });
    expect(f.stdout().startsWith(`[\n  {"id":"${campaign(1).id}","memberCount":1}`)).toBe(true);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toEqual({ command: 'campaigns list', status: 'failed', rows: 1, pages: 1, nextCursor: 'c2', moreRemains: true });
  });
});
