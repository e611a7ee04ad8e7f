import { describe, expect, it } from 'vitest';
import { numberedUuid } from '../../src/emulator/seed/email-events.js';
import { cnvInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

// The emulator's bulk contacts (--seed-contacts) are contacts the commands find and change.
const fx = useEmulator({ seedContacts: 3000, rateLimit: 0 });

const ndjson = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('bulk contacts through the commands (in-process)', () => {
  it('contacts get finds a bulk contact, and export contacts shows its change after an upsert', async () => {
    const id = numberedUuid('f0000000', 42);
    const got = await cnvInProcess(['contacts', 'get', '--email', 'bulk.42@example.com'], { env: fx.env });
    expect(got.exitCode).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({
      cnvContactId: id,
      email: 'bulk.42@example.com',
      userId: 'bulk-user-42',
    });

    const first = await cnvInProcess(['export', 'contacts', '--state-key', 'bulk'], { env: fx.env });
    expect(first.exitCode).toBe(0);
    const before = ndjson(first.stdout).filter((r) => r.id === id);
    expect(before).toHaveLength(1);
    expect(before[0].fields.City).not.toBe('Zurich');

    const up = await cnvInProcess(['contacts', 'upsert', '--email', 'bulk.42@example.com', '--field', 'city=Zurich'], {
      env: fx.env,
    });
    expect(JSON.parse(up.stdout)).toEqual({ cnvContactId: id, contactCreated: false });
    expect(
      JSON.parse((await cnvInProcess(['contacts', 'get', '--contact-id', id], { env: fx.env })).stdout).fields.city,
    ).toBe('Zurich');

    // The next run of the same export continues from its cursor: the change comes, once, last.
    const next = await cnvInProcess(['export', 'contacts', '--state-key', 'bulk'], { env: fx.env });
    expect(next.exitCode).toBe(0);
    const rows = ndjson(next.stdout);
    expect(rows.filter((r) => r.id === id)).toHaveLength(1);
    expect(rows.at(-1)).toMatchObject({ id, email: 'bulk.42@example.com', fields: { City: 'Zurich' } });
    expect(rows.at(-1).updatedAt > before[0].updatedAt).toBe(true);
  });
});
