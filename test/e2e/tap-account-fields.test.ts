import { describe, expect, it } from 'vitest';
import { reseedBeforeEach, useEmulator } from '../helpers/emulator.js';
import { apiRequest, jsonFile, lastState, messages, records, tap, tapConfig, type Message } from '../helpers/tap.js';

// tap-cnv while the account's CONTACT fields change, through the executable against the
// emulator (docs/singer.md, "When the account's fields change", "Property names"): a label two
// fields share and a deleted field are said on stderr (Meltano logs it); a field's property name
// never lands on another's, nor on a name a target reserves (`_sdc_*`).
const fx = useEmulator({ rateLimit: 0 });
reseedBeforeEach(fx);

/** The contacts stream alone (quicker, and what these tests are about). */
function contactsOnly(): string {
  return jsonFile('catalog.json', {
    streams: [{ tap_stream_id: 'contacts', metadata: [{ breadcrumb: [], metadata: { selected: true } }] }],
  });
}

const api = (method: string, path: string, body: unknown) => apiRequest(fx, method, path, body);

const schemaOf = (msgs: Message[]) => msgs.filter((m) => m.type === 'SCHEMA' && m.stream === 'contacts').at(-1)!;

describe('fields that change between runs', () => {
  it('a label two fields share: a warning naming both keys and the remedy; the member it names goes to unresolvedFields', async () => {
    await fx.admin('POST', '/_emulator/fields/city', { label: 'First name' });
    const r = await tap(['--config', tapConfig(fx), '--catalog', contactsOnly()]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: contacts: fields firstName \(column firstName\) and city \(column city\) share the label "First name": .*unresolvedFields.*give each field its own label in the account/,
    );
    // The emulator sends one of the two as `First name (city)`, the other as `First name`: that one
    // cannot be told apart, so it is kept by its label, as docs/singer.md says.
    const ada = records(messages(r.stdout), 'contacts').find((c) => c.email === 'ada@example.com')!;
    expect(ada).toMatchObject({ city: 'London', unresolvedFields: { 'First name': 'Ada' } });
    expect(ada.firstName).toBeUndefined();
  });

  it('a field deleted since the last run: a warning that its column is now frozen, and it leaves the SCHEMA', async () => {
    const config = tapConfig(fx);
    const first = await tap(['--config', config, '--catalog', contactsOnly()]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(schemaOf(messages(first.stdout)).schema.properties.vip).toBeDefined();
    expect((await fx.admin('POST', '/_emulator/fields/vip/delete?business=acme&objectType=CONTACT')).deleted).toBe(
      true,
    );
    const state = jsonFile('state.json', lastState(messages(first.stdout)));
    const next = await tap(['--config', config, '--catalog', contactsOnly(), '--state', state]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /warning: contacts: field vip \(column vip\) is no longer in the account: its column in the warehouse is now frozen/,
    );
    expect(schemaOf(messages(next.stdout)).schema.properties.vip).toBeUndefined();
    // Said once: the run's own STATE no longer names it.
    const again = await tap([
      '--config',
      config,
      '--catalog',
      contactsOnly(),
      '--state',
      jsonFile('state.json', lastState(messages(next.stdout))),
    ]);
    expect(again.stderr).not.toContain('no longer in the account');
  });
});

describe('property names', () => {
  it('keys named like a contact member, like a renamed key (field_email) or a target reserves (_sdc_*): each its own property, none _sdc_', async () => {
    const made: Array<[string, string, string]> = [
      ['email', 'Work email', 'field_email'],
      ['field_email', 'Other email', 'field_field_email'],
      ['_sdc_deleted_at', 'Deleted at', 'field__sdc_deleted_at'],
      ['_sdc_sequence', 'Sequence', 'field__sdc_sequence'],
      ['_sdc_table_version', 'Table version', 'field__sdc_table_version'],
      ['_SDC_Batched_At', 'Batched', 'field__SDC_Batched_At'],
    ];
    for (const [key, label] of made)
      await api('POST', '/v2/fields', { key, label, objectType: 'CONTACT', dataType: 'STRING' });
    await api('POST', '/v2/contacts', {
      email: 'names@example.com',
      fields: Object.fromEntries(made.map(([key]) => [key, `value of ${key}`])),
    });
    const r = await tap(['--config', tapConfig(fx), '--catalog', contactsOnly()]);
    expect(r.exitCode, r.stderr).toBe(0);
    const msgs = messages(r.stdout);
    const properties = schemaOf(msgs).schema.properties;
    for (const [key, label, property] of made) expect(properties[property], key).toMatchObject({ title: label });
    expect(Object.keys(properties).filter((p) => /^_sdc_/i.test(p))).toEqual([]);
    const record = records(msgs, 'contacts').find((c) => c.email === 'names@example.com')!;
    for (const [key, , property] of made) expect(record[property], key).toBe(`value of ${key}`);
    expect(record.unresolvedFields).toBeUndefined();
    expect(Object.keys(record).filter((p) => /^_sdc_/i.test(p))).toEqual([]);
  });
});
