import { ENDPOINTS } from '../endpoints/endpoints.js';
import { allFieldPages } from '../endpoints/field-pages.js';
import { campaignsSchema, fieldsSchema } from './list-schemas.js';
import type { JsonSchema } from './schemas.js';
import { withoutProperties } from './stream-output.js';
import { STREAMS, type StreamName } from './stream-table.js';
import type { TapRun } from './tap-run.js';

type Json = Record<string, unknown>;

/** The field definitions of every object type (GET /v2/fields), FULL_TABLE. */
export function syncFields(run: TapRun): Promise<void> {
  const { http, signal } = run.deps;
  const pages = async function* () {
    for await (const page of allFieldPages(http, { limit: run.opts.test ? 1 : 1000 }, signal)) yield page;
  };
  return fullTable(run, 'fields', fieldsSchema(), pages());
}

/** The custom campaigns (GET /v2/campaigns), FULL_TABLE. */
export function syncCampaigns(run: TapRun): Promise<void> {
  const { http, signal } = run.deps;
  const pages = async function* () {
    let cursor: string | undefined;
    do {
      const limit = run.opts.test ? 1 : ENDPOINTS.listCampaigns.page.max;
      const page = await http.call(ENDPOINTS.listCampaigns, { query: { limit, cursor }, signal });
      yield page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  };
  return fullTable(run, 'campaigns', campaignsSchema(), pages());
}

/**
 * A FULL_TABLE stream: read whole every run (its lists are small), each record with the run's
 * table version, then ACTIVATE_VERSION, so a target with hard_delete drops what the account no
 * longer has. No bookmark: a run cut short reads it whole again. --test: its first page only.
 */
async function fullTable(
  run: TapRun,
  stream: StreamName,
  schema: JsonSchema,
  pages: AsyncIterable<readonly object[]>,
): Promise<void> {
  const writer = run.writer(stream);
  const excluded = run.opts.excluded[stream] ?? new Set<string>();
  await writer.schema(withoutProperties(schema, excluded), [STREAMS[stream].key], []);
  const version = run.deps.now();
  for await (const items of pages) {
    let lines = '';
    for (const item of items) {
      const record: Json = Object.create(null) as Json;
      for (const [name, value] of Object.entries(item)) if (!excluded.has(name)) record[name] = value;
      if (writer.learns && writer.holds(record)) {
        await writer.text(lines);
        lines = '';
        await writer.writeHeld(record, version);
      } else lines += writer.lines(record, version);
    }
    await writer.text(lines);
    run.afterPage(items.length);
    if (run.opts.test) return;
  }
  await writer.activateVersion(version);
}
