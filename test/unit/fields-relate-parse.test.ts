import { describe, expect, it } from 'vitest';
import { sideFrom } from '../../src/commands/fields/relate.js';
import { parseSideSpec } from '../../src/cmdutil/relationship-side.js';
import { createBody } from '../../src/commands/fields/create.js';
import { UsageError } from '../../src/errors.js';

const CO_ID = 'c0000000-0000-4000-8000-000000000001';

describe('parseSideSpec (OBJECT:key:label[:customObjectId])', () => {
  it('parses a standard side, trimming key and label and upper-casing the object', () => {
    expect(parseSideSpec('contact: subscriptions :  My subscriptions ', '--target')).toEqual({
      objectType: 'CONTACT',
      key: 'subscriptions',
      label: 'My subscriptions',
    });
  });

  it('keeps colons inside the label of a standard side', () => {
    expect(parseSideSpec('OPPORTUNITY:partner:Partner: primary: EMEA', '--source')).toEqual({
      objectType: 'OPPORTUNITY',
      key: 'partner',
      label: 'Partner: primary: EMEA',
    });
  });

  it('takes the part after the last colon as the custom object id for CUSTOM_OBJECT', () => {
    expect(parseSideSpec(`custom_object:owner:Owner: main:${CO_ID}`, '--source')).toEqual({
      objectType: 'CUSTOM_OBJECT',
      key: 'owner',
      label: 'Owner: main',
      customObjectId: CO_ID,
    });
  });

  it('accepts Unicode letters, digits and underscores in keys', () => {
    expect(parseSideSpec('COMPANY:käufer_2:Käufer', '--target').key).toBe('käufer_2');
  });

  it.each([
    ['CONTACT', /expected OBJECT:key:label/],
    ['CONTACT:key', /expected OBJECT:key:label/],
    [
      'LEAD:k:Label',
      /object type must be one of CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER, CAMPAIGN, CUSTOM_OBJECT/,
    ],
    ['CONTACT:bad-key:Label', /only letters, digits and underscores/],
    ['CONTACT: :Label', /only letters, digits and underscores/],
    ['CONTACT:k:  ', /label must not be empty/],
    ['CUSTOM_OBJECT:k:Label', /needs the custom object id/],
    ['CUSTOM_OBJECT:k:Label:not-a-uuid', /must be a UUID/],
    ['CUSTOM_OBJECT:k:Label:', /needs a custom object id/],
    [`CONTACT:k:Label:${CO_ID}`, /only for CUSTOM_OBJECT/],
  ])('refuses %j', (spec, message) => {
    expect(() => parseSideSpec(spec, '--source')).toThrow(UsageError);
    expect(() => parseSideSpec(spec, '--source')).toThrow(message);
  });
});

describe('sideFrom (spec or separate flags)', () => {
  it('builds a side from the separate flags, labels with colons as they are', () => {
    expect(
      sideFrom(
        { sourceObject: 'custom_object', sourceKey: ' owner ', sourceLabel: 'A: b', sourceCustomObjectId: CO_ID },
        'source',
      ),
    ).toEqual({
      objectType: 'CUSTOM_OBJECT',
      key: 'owner',
      label: 'A: b',
      customObjectId: CO_ID,
    });
  });

  it('refuses a mix of spec and flags, a missing side and a standard side with an id', () => {
    expect(() => sideFrom({ target: 'CONTACT:a:A', targetKey: 'b' }, 'target')).toThrow(/not both/);
    expect(() => sideFrom({}, 'target')).toThrow(/--target: required/);
    expect(() =>
      sideFrom({ targetObject: 'CONTACT', targetKey: 'a', targetLabel: 'A', targetCustomObjectId: CO_ID }, 'target'),
    ).toThrow(/only for CUSTOM_OBJECT/);
    expect(() => sideFrom({ targetObject: 'CUSTOM_OBJECT', targetKey: 'a', targetLabel: 'A' }, 'target')).toThrow(
      /needs a custom object id/,
    );
  });
});

describe('fields create body', () => {
  it('trims label and key, and requires label, object type and data type', () => {
    expect(createBody({ label: ' Tier ', objectType: 'CONTACT', dataType: 'STRING', key: ' tier ' })).toEqual({
      label: 'Tier',
      objectType: 'CONTACT',
      dataType: 'STRING',
      key: 'tier',
    });
    expect(() => createBody({ objectType: 'CONTACT', dataType: 'STRING' })).toThrow(/--label: required/);
    expect(() => createBody({ label: 'x', dataType: 'STRING' })).toThrow(
      /--object-type: required, one of CONTACT, COMPANY, OPPORTUNITY, CAMPAIGN_MEMBER/,
    );
    expect(() => createBody({ label: 'x', objectType: 'CONTACT' })).toThrow(
      /--data-type: required, one of STRING, NUMBER, BOOLEAN, DATE, DATETIME/,
    );
    expect(() => createBody({ label: 'x', objectType: 'CONTACT', dataType: 'STRING', key: 'a b' })).toThrow(
      /--key: only letters/,
    );
  });
});
