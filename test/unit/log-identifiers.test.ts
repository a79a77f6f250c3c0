/**
 * The logger's second line of defence for patrons' identifiers (src/mask.ts, record 0160): a field
 * named as an identifier is masked whatever a call site passed (a string, a number, a list), at any
 * depth; every other text — the message, string fields, an error's message and stack, printf
 * values, a child logger's bindings — is masked by the identifier's shape; a value already masked
 * is not masked again; the station's own ids (UUIDs) and figures with a unit stay readable; secrets
 * are still replaced.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, maskIdentifier, type Logger } from '../../src/log.js';
import { maskText } from '../../src/mask.js';

function capture(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const log = createLogger('trace', { write: (s: string) => void raw.push(s) });
  return { log, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

function logged(obj: Record<string, unknown>): Record<string, unknown> {
  const { log, lines } = capture();
  log.trace(obj, 'x');
  return lines()[0] ?? {};
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

describe('maskText: identifiers in free text, by their shape', () => {
  it('masks barcodes, card numbers, item numbers, PINs and UIDs', () => {
    expect(maskText('no deposit for BAR_CODE 31234000000017')).toBe('no deposit for BAR_CODE ***017 (14)');
    expect(maskText('card 0004194305 refused')).toBe('card ***305 (10) refused');
    expect(maskText('PIN 123456 is wrong')).toBe('PIN *** (6) is wrong');
    expect(maskText('tag E004015012345678 unreadable')).toBe('tag ***678 (16) unreadable');
    expect(maskText('card uid 04a2b3c4d5e680')).toBe('card uid ***680 (14)');
    expect(maskText('mifare 1A2B3C4D')).toBe('mifare ***C4D (8)');
    expect(maskText('item A31234000123456B at the reader')).toBe('item ***56B (16) at the reader');
    expect(maskText('uid E0:04:01:50:12:34:56:78 left')).toBe('uid ***:78 (23) left');
    expect(maskText('frame 02 e0 04 01 50 12 34 03')).not.toContain('50 12 34');
    expect(maskText('"itemId":"31234000000017"')).toBe('"itemId":"***017 (14)"');
  });

  it("leaves the station's own ids, figures with a unit or bound, times and short numbers", () => {
    const keep = [
      'event 2f1d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b answered',
      'no answer within 120000 ms',
      'body larger than 1048576 bytes',
      'timing.pinIdleMs: too big: expected number to be <=600000',
      'at 2026-11-23T10:00:00.000Z on 127.0.0.1:8470',
      'box 12 of 999, HTTP 503, attempt 3',
      'pickup-station 0.2.0 on node v24.11.1',
      'already masked: ***017 (14)',
      'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ];
    for (const text of keep) expect(maskText(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = maskText('items 31234000000017 and E004015012345678, PIN 654321');
    expect(maskText(once)).toBe(once);
  });
});

describe('the logger masks at any depth and in every text', () => {
  it('masks identifier fields nested deep, and identifiers in any string field', () => {
    const line = logged({ a: { b: { c: { itemId: '31234000000017', list: [{ uid: 'E004015012345678' }] } } }, detail: 'item 31234000000017 has no set' });
    expect(JSON.stringify(line)).not.toMatch(/31234000000017|E004015012345678/);
    expect(line).toMatchObject({ a: { b: { c: { itemId: '***017 (14)', list: [{ uid: '***678 (16)' }] } } }, detail: 'item ***017 (14) has no set' });
  });

  it("masks the message, printf values, an error's message and stack, and a child's bindings", () => {
    const { log, lines } = capture();
    log.info('scanned 31234000000017');
    log.info('value %s', 'E004015012345678');
    const e = new Error('decoder: item 31234000000017 is not ISO 28560-3');
    log.error(e);
    log.error({ err: e }, 'failed');
    log.child({ tag: 'E004015012345678' }).warn({ uids: ['E004015087654321'] }, 'child');
    const text = lines()
      .map((l) => JSON.stringify(l))
      .join('\n');
    expect(text).not.toMatch(/31234000000017|E004015012345678|E004015087654321/);
    const [first, second, third, fourth] = lines();
    expect(first!['msg']).toBe('scanned ***017 (14)');
    expect(second!['msg']).toBe('value ***678 (16)');
    expect(third).toMatchObject({
      msg: 'decoder: item ***017 (14) is not ISO 28560-3',
      err: { type: 'Error', message: 'decoder: item ***017 (14) is not ISO 28560-3' },
    });
    expect(String((third!['err'] as { stack: string }).stack)).toContain('log-identifiers.test.ts');
    expect(fourth).toMatchObject({ msg: 'failed', err: { type: 'Error' } });
  });

  it('keeps numbers as numbers, and does not change the object it was given', () => {
    const obj = { count: 31234000000017, detail: 'item 31234000000017', nested: { itemId: '31234000000017' } };
    expect(logged(obj)).toMatchObject({ count: 31234000000017, detail: 'item ***017 (14)', nested: { itemId: '***017 (14)' } });
    expect(obj.nested.itemId).toBe('31234000000017');
  });

  it('survives a circular object', () => {
    const a: Record<string, unknown> = { uid: 'E004015012345678' };
    a['self'] = a;
    expect(logged({ a })).toMatchObject({ a: { uid: '***678 (16)', self: '[masked: too deep or circular]' } });
  });
});
