import { describe, expect, it } from 'vitest';
import { accountIdentity, sameAccount } from '../../src/config/account-identity.js';
import { parseJobCell, sameJob } from '../../src/batch/row-report-job.js';

const KEY = 'sk_live_ab_0123456789abcdef';

describe('one account identity', () => {
  it('normalises the base URL: a trailing slash, the host case, a default port or credentials make no other account', () => {
    const id = accountIdentity('https://api.example.com/base', KEY);
    expect(id).toBe('sk_live_ab@api.example.com/base');
    for (const url of [
      'https://api.example.com/base/',
      'https://API.example.com:443/base',
      'https://u:p@api.example.com/base',
    ])
      expect(accountIdentity(url, KEY)).toBe(id);
    expect(accountIdentity('https://api.example.com/other', KEY)).not.toBe(id);
    expect(accountIdentity('https://api.example.com/base', 'sk_live_cd_0123456789abcdef')).not.toBe(id);
  });

  it('a key of another shape is named by a hash, never by itself', () => {
    const id = accountIdentity('https://api.example.com', 'plain-secret-token');
    expect(id).toMatch(/^key-[0-9a-f]{12}@api\.example\.com$/);
    expect(id).not.toContain('plain-secret-token');
  });

  it('reads the form reports had before: `<host and path> <masked key>`', () => {
    const id = accountIdentity('https://api.example.com/base', KEY);
    expect(sameAccount(id, id)).toBe(true);
    expect(sameAccount('api.example.com/base sk_live_ab_****', id)).toBe(true);
    expect(sameAccount('api.example.com/base sk_live_cd_****', id)).toBe(false);
    expect(sameAccount('api.example.com/other sk_live_ab_****', id)).toBe(false);
    const plain = accountIdentity('https://api.example.com', 'plain-secret-token');
    expect(sameAccount('api.example.com ****', plain)).toBe(true);
    expect(sameAccount('api.example.com ****', accountIdentity('https://api.example.com', KEY))).toBe(false);
    expect(sameAccount('sk_live_ab@api.example.com', id)).toBe(false);
  });

  it("a report's job of either form resumes on the same account", () => {
    const now = {
      command: 'contacts upsert',
      input: 'people.csv',
      account: accountIdentity('https://api.example.com', KEY),
    };
    const cell = (account: string) =>
      parseJobCell(JSON.stringify({ command: 'contacts upsert', target: null, input: 'people.csv', account }))!;
    expect(sameJob(cell('api.example.com sk_live_ab_****'), now)).toBe(true);
    expect(sameJob(cell('sk_live_ab@api.example.com'), now)).toBe(true);
    expect(sameJob(cell('api.example.com sk_live_zz_****'), now)).toBe(false);
  });
});
