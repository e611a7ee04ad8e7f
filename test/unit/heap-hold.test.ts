import { beforeEach, describe, expect, it, vi } from 'vitest';

// The heap hold sets process-wide V8 flags: checked on a mocked node:v8, never on the test process.
const v8 = vi.hoisted(() => ({ setFlagsFromString: vi.fn(), young: 0 }));
vi.mock('node:v8', () => ({
  setFlagsFromString: v8.setFlagsFromString,
  getHeapSpaceStatistics: () => [{ space_name: 'new_space', space_size: v8.young }],
}));
const { holdHeapSize } = await import('../../src/runtime/heap-hold.js');

describe('holdHeapSize', () => {
  beforeEach(() => {
    v8.setFlagsFromString.mockClear();
    v8.young = 0;
  });

  it('grows the heap by a fifth, and holds the young generation once it reached 16 MB', () => {
    const check = holdHeapSize({});
    expect(v8.setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=20']]);
    check();
    v8.young = 16 * 2 ** 20;
    check();
    check();
    expect(v8.setFlagsFromString.mock.calls).toEqual([['--heap-growing-percent=20'], ['--semi-space-growth-factor=1']]);
  });

  it.each([{ CNV_RUNTIME_TUNING: 'off' }, { CNV_HEAP_HOLD: 'off' }])('%o: V8 sizes the heap itself', (env) => {
    v8.young = 32 * 2 ** 20;
    holdHeapSize(env)();
    expect(v8.setFlagsFromString).not.toHaveBeenCalled();
  });
});
