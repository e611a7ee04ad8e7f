// Baseline: the least a script could do to send an audience batch file: read the CSV's one
// column of emails, cut it into bodies of 1,000, send them with undici, 8 in flight (cnv's
// default), and check each answer's status. No validation, no report, no retries. With RATE, it
// paces its requests as a correct client must (RATE per second after a burst of 3, as cnv does):
// the floor that cnv is held to; without, it sends as fast as the server answers.
// usage: node batch-min.mjs BASE_URL KEY AUDIENCE_ID FILE [CONCURRENCY] [RATE]
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [baseUrl, key, audienceId, file, concurrencyArg, rateArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 8);
const interval = rateArg ? 1000 / Number(rateArg) : 0;
const BURST = 3;
let sent = 0;
let firstAt = 0;
/** Waits until the next request may go: the first BURST at once, then one every `interval` ms. */
const pace = async () => {
  if (!interval) return;
  const n = sent++;
  if (n === 0) firstAt = performance.now();
  const due = firstAt + Math.max(0, n - (BURST - 1)) * interval;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
const emails = readFileSync(file, 'utf8')
  .split('\n')
  .slice(1)
  .filter((l) => l !== '');
const bodies = [];
for (let i = 0; i < emails.length; i += 1000) {
  bodies.push(JSON.stringify({ contacts: emails.slice(i, i + 1000).map((email) => ({ email })) }));
}
let next = 0;
let added = 0;
const worker = async () => {
  while (next < bodies.length) {
    const body = bodies[next++];
    await pace();
    const res = await request(`${baseUrl}/v2/audiences/${audienceId}/contacts/batch`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body,
    });
    const page = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${JSON.stringify(page)}`);
    for (const r of page.data.results) if (r.added) added++;
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
if (added !== emails.length) throw new Error(`added ${added} of ${emails.length}`);
await agent.close();
