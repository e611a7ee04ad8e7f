// Baseline: the least a script could do to page an export with undici and write each row's
// JSON line to a file. No validation, no state, no fsync, no retries.
// usage: node export-min.mjs BASE_URL KEY OUT_FILE [csv]
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Agent, request } from 'undici';

const [baseUrl, key, out, format] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 10_000 });
const file = createWriteStream(out);
let cursor = '';
let columns;
const csvCell = (v) => {
  const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
for (;;) {
  const res = await request(`${baseUrl}/v2/exports/contacts`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ cursor, limit: 5000 }),
  });
  const page = await res.body.json();
  let chunk = '';
  for (const row of page.data.contacts) {
    if (format === 'csv') {
      if (!columns) {
        columns = Object.keys(row).filter((k) => k !== 'fields');
        chunk += columns.join(',') + ',fields\n';
      }
      chunk += columns.map((c) => csvCell(row[c])).join(',') + ',' + csvCell(row.fields) + '\n';
    } else {
      chunk += JSON.stringify(row) + '\n';
    }
  }
  if (!file.write(chunk)) await once(file, 'drain');
  if (!page.pagination.nextCursor) break;
  cursor = page.pagination.nextCursor;
}
file.end();
await once(file, 'finish');
await agent.close();
