import { describe, expect, it } from 'vitest';
import { columnTableLines, type ColumnEntry } from '../../src/batch/columns/column-table.js';

describe('columnTableLines', () => {
  it('lays out 200,000 columns without a spread over them (Math.max(...list) overflowed the stack)', () => {
    const entries = Array.from({ length: 200_000 }, (_, i): ColumnEntry => ({
      column: `Column ${i}`,
      sentAs: i === 0 ? 'email' : null,
      note: 'left out',
    }));
    const lines = columnTableLines('columns', entries);
    expect(lines).toHaveLength(200_001);
    expect(lines[1]).toBe('  Column 0       -> email     (left out)');
  });
});
