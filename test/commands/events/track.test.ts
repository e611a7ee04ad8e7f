import { describe, expect, it } from 'vitest';
import { FIXTURE_CONTACTS } from '../../../src/emulator/seed/fixtures.js';
import { cnvInProcess } from '../../helpers/cli.js';
import { useEmulator } from '../../helpers/emulator.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const fx = useEmulator({}, { faults: true });

const json = (s: string) => JSON.parse(s);
const eventsNamed = async (event: string) =>
  (await fx.admin('GET', `/_emulator/state/events?event=${event}`)) as unknown[];

describe('cnv events track (in-process)', () => {
  it('records an event by userId and prints the ids', async () => {
    const res = await cnvInProcess(
      ['events', 'track', '--event', 'plan_upgraded', '--user-id', 'user-ada', '--data', '{"plan":"pro"}'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    const data = json(res.stdout);
    expect(data).toMatchObject({
      cnvEventId: expect.any(String),
      cnvContactId: FIXTURE_CONTACTS.ada.id,
      clientEventId: expect.any(String),
    });
    expect(await eventsNamed('plan_upgraded')).toHaveLength(1);
  });

  it('a repeated clientEventId is a success with duplicate: true, and records nothing new', async () => {
    const args = [
      'events',
      'track',
      '--event',
      'once_only',
      '--email',
      FIXTURE_CONTACTS.grace.email,
      '--client-event-id',
      'cli-evt-1',
    ];
    const first = json((await cnvInProcess(args, { env: fx.env })).stdout);
    const second = await cnvInProcess(args, { env: fx.env });
    expect(second.exitCode).toBe(0);
    expect(json(second.stdout)).toMatchObject({ duplicate: true, cnvEventId: first.cnvEventId });
    expect(await eventsNamed('once_only')).toHaveLength(1);
  });

  it('conflicting_identifier is an API rejection (exit 3)', async () => {
    const res = await cnvInProcess(
      ['events', 'track', '--event', 'x', '--user-id', 'someone-else', '--email', FIXTURE_CONTACTS.ada.email],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(3);
    expect(res.stderr).toMatch(/^error: conflicting_identifier: /m);
  });

  it.each([
    [['--user-id', 'u'], /--event: the event name is required/],
    [['--event', 'x'], /identify the contact with one of --user-id, --email/],
    [['--event', 'x', '--email', 'a@example.com', '--data', '{oops'], /--data.*not valid JSON/],
    [['--event', 'x', '--email', 'a@example.com', '--data', '[1]'], /--data.*expected a JSON object/],
  ])('bad input exits 2 before sending: %j', async (args, message) => {
    const res = await cnvInProcess(['events', 'track', ...args], { env: fx.env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(message);
  });

  it('sends the unnamed occurred-at field through --set', async () => {
    const res = await cnvInProcess(
      [
        'events',
        'track',
        '--event',
        'backdated',
        '--email',
        FIXTURE_CONTACTS.ada.email,
        '--set',
        'occurredAt=2025-01-02T03:04:05.000Z',
      ],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    const [event] = (await eventsNamed('backdated')) as Array<{ occurredAt: string }>;
    expect(event.occurredAt).toBe('2025-01-02T03:04:05.000Z');
  });
});

describe('retries against a faulty emulator (in-process)', () => {
  it('a dropped connection after the server recorded the event: retried with the same clientEventId, recorded once', async () => {
    await fx.faults({ dropAfterNext: 1 });
    const res = await cnvInProcess(
      ['events', 'track', '--event', 'dropped_once', '--email', FIXTURE_CONTACTS.grace.email, '--verbose'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(json(res.stdout).duplicate).toBe(true);
    expect(res.stderr).toMatch(/~ retry POST \/v2\/events after attempt=1/);
    expect(await eventsNamed('dropped_once')).toHaveLength(1);
  });

  it('500s then success: the event is tracked exactly once', async () => {
    await fx.faults({ failNext: 2 });
    const res = await cnvInProcess(
      ['events', 'track', '--event', 'flaky_500', '--email', FIXTURE_CONTACTS.grace.email],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(0);
    expect(await eventsNamed('flaky_500')).toHaveLength(1);
  });

  it('a 429 with Retry-After is waited out', async () => {
    await fx.faults({ rateLimitNext: 1, retryAfter: 1 });
    const clock = new FakeClock(); // the wait is driven, not slept
    const res = await cnvInProcess(
      ['events', 'track', '--event', 'limited_once', '--email', FIXTURE_CONTACTS.grace.email, '--verbose'],
      { env: fx.env, clock },
    );
    expect(res.exitCode).toBe(0);
    expect(res.stderr).toMatch(/< 429 POST \/v2\/events/);
    expect(clock.sleeps).toContain(1000);
    expect(clock.now()).toBeGreaterThanOrEqual(1000);
    expect(await eventsNamed('limited_once')).toHaveLength(1);
  });

  it('still failing after every retry: exit 7', async () => {
    await fx.faults({ failNext: 10 });
    const res = await cnvInProcess(['contacts', 'upsert', '--email', 'never@example.com', '--max-retries', '1'], {
      env: fx.env,
    });
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(/internal_error: .*after 2 attempts/);
  });

  it('nothing listening: exit 7 naming the network failure', async () => {
    const res = await cnvInProcess(
      ['contacts', 'get', '--email', 'a@example.com', '--base-url', 'http://127.0.0.1:9', '--max-retries', '0'],
      { env: fx.env },
    );
    expect(res.exitCode).toBe(7);
    expect(res.stderr).toMatch(/ECONNREFUSED/);
  });
});
