import { describe, expect, it } from 'vitest';
import {
  exportedMemberNames,
  extendsLabel,
  labelAndKey,
  labelForm,
  labelOf,
  splitLabelAndKey,
} from '../../src/endpoints/field-names.js';
import { fieldColumns } from '../../src/exporter/csv-layout.js';
import { fieldKeys } from '../../src/exporter/fields-by-key.js';
import { exportLabelTarget } from '../../src/batch/columns/field-match.js';
import type { FieldDefinition } from '../../src/endpoints/fields.js';

const composed = 'Caf\u00e9';
const decomposed = 'Cafe\u0301';

describe('field names: one home for the label, `Label (key)` and NFC', () => {
  it('compares labels in Unicode NFC', () => {
    expect(composed).not.toBe(decomposed);
    expect(labelForm(composed)).toBe(labelForm(decomposed));
  });

  it('spells `Label (key)` and reads it back; a name that is not one is undefined', () => {
    expect(labelAndKey('Score', 'score2')).toBe('Score (score2)');
    expect(splitLabelAndKey(labelAndKey('Score (old)', 'score2'))).toEqual({ label: 'Score (old)', key: 'score2' });
    expect(splitLabelAndKey('Score')).toBeUndefined();
    expect(extendsLabel('Score (score2)', 'Score')).toBe(true);
    expect(extendsLabel('Scores', 'Score')).toBe(false);
  });

  it('names the exported members: a label an earlier field has becomes `Label (key)`', () => {
    const names = exportedMemberNames([
      { key: 'a', label: 'Score' },
      { key: 'b', label: 'Score' },
      { key: 'c', label: 'City' },
    ]);
    expect([...names]).toEqual([
      ['a', 'Score'],
      ['b', 'Score (b)'],
      ['c', 'City'],
    ]);
    expect(labelOf('fields.id')).toBe('id');
    expect(labelOf('City')).toBe('City');
  });

  it('the CSV writer, --fields-by key and an import read one spelling: each field of a shared label by its own column', () => {
    const defs = [
      { key: 'a', label: composed },
      { key: 'b', label: decomposed },
    ];
    const columns = fieldColumns(defs);
    expect(columns.map((c) => c.column)).toEqual([labelAndKey(composed, 'a'), labelAndKey(decomposed, 'b')]);
    const definitions = new Map([
      [
        'fields',
        new Map(defs.map((d) => [d.key, { ...d, dataType: 'STRING', objectType: 'CONTACT' } as FieldDefinition])),
      ],
    ]);
    for (const { column, key } of columns) {
      expect(exportLabelTarget(definitions, 'fields', column)).toMatchObject({ kind: 'field', key });
    }
    const keys = fieldKeys([
      { key: 'a', label: 'Score' },
      { key: 'b', label: 'Score' },
    ]);
    expect(keys.keyOf.get(labelAndKey('Score', 'b'))).toBe('b');
  });
});
