/**
 * The logger's second line of defence for patrons' identifiers: a field named as an identifier is
 * masked whatever a call site passed (a string, a number, a list), at any level, nested one deep;
 * a value already masked is not masked again; secrets are still replaced.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, maskIdentifier } from '../../src/log.js';

function logged(obj: Record<string, unknown>): Record<string, unknown> {
  const lines: string[] = [];
  createLogger('trace', { write: (s: string) => void lines.push(s) }).trace(obj, 'x');
  return JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
}

describe('maskIdentifier', () => {
  it('keeps the last three characters and the length, nothing of a short value, and is idempotent', () => {
    expect(maskIdentifier('31234000000017')).toBe('***017 (14)');
    expect(maskIdentifier('A1B2')).toBe('*** (4)');
    expect(maskIdentifier(maskIdentifier('04A2B3C4D5E680'))).toBe('***680 (14)');
    // A scanned value that only starts like a mask is masked all the same.
    expect(maskIdentifier('***E00401501A2B3C4D')).toBe('***C4D (19)');
  });
});

describe('the logger', () => {
  it('masks identifier fields a call site passed in full', () => {
    const line = logged({
      identifierValue: '04A2B3C4D5E680',
      itemId: 31234000000017,
      uids: ['E004015012345678', 'E004015087654321'],
      rfid: { uid: 'E004015012345678' },
    });
    expect(line).toMatchObject({ identifierValue: '***680 (14)', itemId: '***017 (14)', uids: ['***678 (16)', '***321 (16)'], rfid: { uid: '***678 (16)' } });
    expect(JSON.stringify(line)).not.toMatch(/04A2B3C4D5E680|31234000000017|E004015012345678/);
  });

  it('leaves a masked value as it is, and still redacts secrets', () => {
    expect(logged({ identifierValue: '***680 (14)', password: 'hunter2', pin: '123456' })).toMatchObject({
      identifierValue: '***680 (14)',
      password: '[redacted]',
      pin: '[redacted]',
    });
  });
});
