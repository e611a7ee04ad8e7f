import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/campaigns/list.js';
import { FIXTURE_CAMPAIGNS as CA } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { reseedBeforeEach, useEmulator } from '../../helpers/emulator.js';
import { apiError, ok } from '../../helpers/fake-api.js';
import { useFakeContext } from '../../helpers/fake-context.js';

// `campaigns list`'s run alone: one page, every page (--all), a cursor, and the summary of a run that fails midway.
const campaign = (n: number) => ({
  id: `b100000${n}-0000-4000-8000-000000000000`,
  name: `Campaign ${n}`,
  type: { id: 't1', name: 'Webinar', systemType: 'CUSTOM' },
  memberCount: n,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
});
const COLUMNS = [
  'id',
  'name',
  'type.id',
  'type.name',
  'type.systemType',
  'sfdcCampaignId',
  'memberCount',
  'createdAt',
  'updatedAt',
];

const f = useFakeContext();

describe('campaigns list: run', () => {
  it('one page: its rows as the list, and the next cursor as the trailer', async () => {
    f.api.on('GET', '/v2/campaigns', ok({ campaigns: [campaign(1), campaign(2)] }, 'c2'));
    expect(await run(f.ctx, { args: [], opts: {} })).toEqual({
      kind: 'list',
      rows: [campaign(1), campaign(2)],
      columns: COLUMNS,
      tableColumns: ['id', 'name', 'type.name', 'memberCount'],
      chosen: false,
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
    await expect(
      run(f.ctx, { args: [], opts: { paginate: true, columns: 'id,memberCount', summaryJson: summary } }),
    ).rejects.toMatchObject({ exitCode: 3, code: 'invalid_cursor' });
    expect(f.stdout().startsWith(`[\n  {"id":"${campaign(1).id}","memberCount":1}`)).toBe(true);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toEqual({
      command: 'campaigns list',
      status: 'failed',
      rows: 1,
      pages: 1,
      nextCursor: 'c2',
      moreRemains: true,
    });
  });
});

const fx = useEmulator();
const json = (s: string) => JSON.parse(s);

describe('cnv campaigns (in-process)', () => {
  reseedBeforeEach(fx);

  const activeCount = () =>
    [...fx.emulator.store.business('acme').campaigns.values()].filter((c) => !c.archived).length;

  it('list: one page as rows, and the next cursor on stderr', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--limit', '5'], { env: fx.env });
    expect(res.exitCode).toBe(0);
    const rows = json(res.stdout);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({ id: CA.springWebinar.id, type: { name: 'Webinar' }, memberCount: 1 });
    expect(res.stderr).toMatch(/^next page: --cursor \S+ \(or --all for every page\)$/m);
  });

  it('list --json: the same array as piped, the cursor on stderr; the cursor continues', async () => {
    const piped = await cnvInProcess(['campaigns', 'list', '--limit', '2'], { env: fx.env });
    const first = await cnvInProcess(['campaigns', 'list', '--limit', '2', '--json'], { env: fx.env });
    expect(first.stdout).toBe(piped.stdout);
    expect(json(first.stdout)).toEqual([
      expect.objectContaining({ id: CA.springWebinar.id }),
      expect.objectContaining({ id: CA.tradeShow.id }),
    ]);
    const cursor = /^next page: --cursor (\S+) /m.exec(first.stderr)![1];
    const second = json(
      (await cnvInProcess(['campaigns', 'list', '--limit', '2', '--json', '--cursor', cursor], { env: fx.env })).stdout,
    );
    expect(second[0].id).not.toBe(CA.tradeShow.id);
  });

  it('list --all follows every cursor (ndjson, csv), without archived campaigns', async () => {
    const ndjson = await cnvInProcess(['campaigns', 'list', '--all', '-o', 'ndjson', '--limit', '30'], { env: fx.env });
    const ids = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => json(l).id);
    expect(ids).toHaveLength(activeCount());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(CA.archived.id);
    expect(ndjson.stderr).not.toMatch(/next page/);
    const csv = await cnvInProcess(['campaigns', 'list', '--all', '-o', 'csv'], { env: fx.env });
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'id,name,type.id,type.name,type.systemType,sfdcCampaignId,memberCount,createdAt,updatedAt,_extra',
    );
    expect(lines).toHaveLength(activeCount() + 1);
  });

  it('list: a bad cursor exits 3 with invalid_cursor', async () => {
    const res = await cnvInProcess(['campaigns', 'list', '--cursor', 'garbage'], { env: fx.env });
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/invalid_cursor/);
  });
});
