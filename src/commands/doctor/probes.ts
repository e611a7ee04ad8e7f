import { ApiError, NotTheApiError, ResponseShapeError } from '../../errors.js';

/**
 * One line of doctor's report. `ok` only for what a request decided; `inferred` for an answer
 * that makes it likely but a made-up name left it open; `unchecked` for what doctor could not
 * tell without changing data (the answer does not say, or no request would).
 */
export interface Check {
  check: string;
  status: 'ok' | 'inferred' | 'unchecked' | 'warn' | 'fail';
  detail: string;
}

type ProbeRequest = { method: 'GET' | 'POST' | 'DELETE'; path: string; query?: Record<string, string>; body?: unknown };

/** Real ids met on the way (a campaign from the list, a contact from the contacts export). */
export interface Known {
  campaignId?: string;
  /** How to ask for a contact that exists. */
  contact?: { cnvContactId: string } | { email: string };
}

interface Probe {
  name: string;
  request(known: Known): ProbeRequest;
  /**
   * Whether the request is valid and changes nothing, so that only enablement stands between
   * it and a 2xx (a decisive probe); else an API answer other than 403 is only an inference.
   */
  decisive(known: Known): boolean;
  /** Takes what a later probe can use from a 2xx answer's data. */
  learn?(data: unknown, known: Known): void;
}

const PROBE_EMAIL = 'cnv-doctor-probe@example.invalid';
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * One probe per gated endpoint (spec, Authentication 5), in this order. None changes anything:
 * the exports read one row; get contact reads the contact the contacts export showed (else a
 * made-up address); the batch adds name a contact that does not exist (a per-item failure in a
 * 200); create field sends an object type the spec does not have, so nothing can be created.
 */
export const GATED_PROBES: Probe[] = [
  {
    name: 'export contacts',
    request: () => ({ method: 'POST', path: '/v2/exports/contacts', body: { limit: 1 } }),
    decisive: () => true,
    learn(data, known) {
      // The spec does not show an exported row's members; the contact's own are likely there.
      const first = (data as { contacts?: Array<{ cnvContactId?: unknown; email?: unknown }> } | undefined)
        ?.contacts?.[0];
      if (typeof first?.cnvContactId === 'string' && first.cnvContactId !== '')
        known.contact = { cnvContactId: first.cnvContactId };
      else if (typeof first?.email === 'string' && first.email.includes('@')) known.contact = { email: first.email };
    },
  },
  {
    name: 'get contact',
    request: (known) => ({ method: 'GET', path: '/v2/contacts', query: known.contact ?? { email: PROBE_EMAIL } }),
    decisive: (known) => known.contact !== undefined,
  },
  {
    name: 'create field',
    request: () => ({
      method: 'POST',
      path: '/v2/fields',
      body: { label: 'cnv doctor probe', objectType: 'CNV_DOCTOR_PROBE', dataType: 'STRING' },
    }),
    decisive: () => false,
  },
  {
    name: 'batch add to audience',
    request: () => ({
      method: 'POST',
      path: `/v2/audiences/${NIL_UUID}/contacts/batch`,
      body: { contacts: [{ email: PROBE_EMAIL }] },
    }),
    decisive: () => false,
  },
  {
    name: 'batch add to campaign',
    request: (known) => ({
      method: 'POST',
      path: `/v2/campaigns/${encodeURIComponent(known.campaignId ?? NIL_UUID)}/contacts/batch`,
      body: { contacts: [{ email: PROBE_EMAIL }] },
    }),
    decisive: (known) => known.campaignId !== undefined,
  },
  {
    name: 'export custom events',
    request: () => ({
      method: 'POST',
      path: '/v2/exports/custom-events',
      body: { occurredAt: { start: '1970-01-01T00:00:00.000Z', end: '1970-01-01T00:00:00.001Z' }, limit: 1 },
    }),
    decisive: () => true,
  },
  {
    name: 'export email events',
    request: () => ({ method: 'POST', path: '/v2/exports/email-events', body: { eventType: 'EMAIL_SEND', limit: 1 } }),
    decisive: () => true,
  },
];

/**
 * The verdict on one probe's outcome (`err` undefined: a 2xx). Decisive in any order of the
 * server's checks: 2xx is enabled, 403 export_not_enabled is not. An answer that is not the
 * API's fails the check.
 */
export function probeVerdict(check: string, probe: Probe, err: unknown, known: Known = {}): Check {
  if (err === undefined) return { check, status: 'ok', detail: 'enabled' };
  if (err instanceof NotTheApiError || err instanceof ResponseShapeError)
    return { check, status: 'fail', detail: `${err.code}: ${err.message}` };
  if (err instanceof ApiError && err.code === 'export_not_enabled') {
    return { check, status: 'warn', detail: 'not enabled for this account (403 export_not_enabled)' };
  }
  if (err instanceof ApiError && err.status === 403)
    return { check, status: 'warn', detail: `forbidden (403 ${err.code}): ${err.message}` };
  if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 429) {
    // A valid request answered so can only be enabled; one naming something made up may have
    // been refused before enablement was looked at.
    const decisive = probe.decisive(known);
    return {
      check,
      status: decisive ? 'ok' : 'inferred',
      detail:
        `enabled, by inference: ${decisive ? 'a valid request' : 'a request naming something made up'} ` +
        `was answered ${err.status} ${err.code}, not 403 export_not_enabled`,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    check,
    status: 'warn',
    detail: `could not tell: ${err instanceof ApiError ? `${err.status} ${err.code}: ` : ''}${message}`,
  };
}

/**
 * The permissions the spec names (Authentication 6), each probed with a request that cannot
 * change anything: it names an audience or custom object that does not exist. A 403 forbidden
 * says the key lacks it (a warning); any other answer (the server looked for the made-up thing
 * first: 404) leaves it unknown, said as `unchecked`, never `ok`.
 */
export const PERMISSION_PROBES: Array<{ name: string; request: ProbeRequest; write: string }> = [
  {
    name: 'audience edit',
    request: { method: 'DELETE', path: `/v2/audiences/${NIL_UUID}/contacts`, body: { email: PROBE_EMAIL } },
    write: 'audience remove',
  },
  {
    name: 'field creation and custom-object edit',
    request: {
      method: 'POST',
      path: '/v2/fields/relationships',
      body: {
        source: {
          objectType: 'CUSTOM_OBJECT',
          customObjectId: NIL_UUID,
          key: 'cnvDoctorProbe',
          label: 'cnv doctor probe',
        },
        target: {
          objectType: 'CUSTOM_OBJECT',
          customObjectId: NIL_UUID,
          key: 'cnvDoctorProbeBack',
          label: 'cnv doctor probe back',
        },
      },
    },
    write: 'fields relate',
  },
  {
    name: 'edit records',
    request: {
      method: 'POST',
      path: `/v2/custom-objects/${NIL_UUID}/records/batch`,
      body: { records: [{ clientDedupKey: 'cnv-doctor-probe', fields: {} }] },
    },
    write: 'records upsert',
  },
];

/** The verdict on a permission probe: only a 403 forbidden tells (the key lacks it); a 2xx cannot come from made-up names. */
export function permissionVerdict(name: string, write: string, err: unknown): Check {
  const check = `permission: ${name}`;
  if (err instanceof NotTheApiError || err instanceof ResponseShapeError)
    return { check, status: 'fail', detail: `${err.code}: ${err.message}` };
  if (err instanceof ApiError && err.status === 403)
    return { check, status: 'warn', detail: `refused (403 ${err.code}: ${err.message}): ${write} will be refused too` };
  const answer =
    err === undefined
      ? 'a 2xx'
      : err instanceof ApiError
        ? `${err.status} ${err.code}`
        : err instanceof Error
          ? err.message
          : String(err);
  const madeUp = name === 'audience edit' ? 'audience' : 'custom object';
  return {
    check,
    status: 'unchecked',
    detail:
      `not checked: a request that changes nothing names a made-up ${madeUp}, ` +
      `and was answered ${answer}, which does not tell; ${write} will say`,
  };
}
