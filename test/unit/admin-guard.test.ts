import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkAdminRequest, isLoopbackHost } from '../../src/emulator/admin-guard.js';
import { EmulatorError } from '../../src/emulator/error-answer.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const refusal = (headers: Record<string, string>, method = 'POST', beyondLoopback = false) => {
  try {
    checkAdminRequest(req(headers), method, beyondLoopback);
    return 'allowed';
  } catch (err) {
    return `${(err as EmulatorError).status} ${(err as EmulatorError).code}`;
  }
};

describe('the emulator admin guard', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };

  it('accepts loopback hosts, with or without a port, and JSON writes', () => {
    for (const host of ['localhost', 'localhost:4010', '127.0.0.1:4010', '127.1.2.3', '[::1]:4010', '[::1]']) {
      expect(refusal({ host, ...json }), host).toBe('allowed');
    }
    expect(refusal({ host: '127.0.0.1' }, 'GET')).toBe('allowed');
  });

  it('refuses other hosts (a rebound name), and IP addresses unless it listens beyond loopback', () => {
    for (const host of ['evil.example', 'evil.example:4010', 'localhost.evil.example', '192.168.1.5:4010', '']) {
      expect(refusal({ host, ...json }), host).toBe('403 forbidden_host');
    }
    expect(refusal({ ...json })).toBe('403 forbidden_host');
    expect(refusal({ host: '192.168.1.5:4010', ...json }, 'POST', true)).toBe('allowed');
    expect(refusal({ host: '[fe80::1]:4010', ...json }, 'POST', true)).toBe('allowed');
    expect(refusal({ host: 'emulator:4010', ...json }, 'POST', true)).toBe('403 forbidden_host');
  });

  it('refuses writes without a JSON content type; reads need none', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect(refusal({ host: '127.0.0.1', 'content-type': type }, 'POST'), type).toBe('415 unsupported_media_type');
    }
    expect(refusal({ host: '127.0.0.1' }, 'DELETE')).toBe('415 unsupported_media_type');
    expect(refusal({ host: '127.0.0.1' }, 'GET')).toBe('allowed');
  });

  it('knows loopback interfaces', () => {
    expect(['127.0.0.1', 'localhost', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '::', '192.168.1.5'].some(isLoopbackHost)).toBe(false);
  });
});
