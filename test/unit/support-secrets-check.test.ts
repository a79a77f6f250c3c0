/** The secrets check itself must find what it looks for (a check that cannot fail proves nothing). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, findLeaks } from '../support/secrets.js';

const known = {
  stationId: 'd3b07384-d9a0-4c9b-8f3e-2b8c1a0e5f11',
  password: 'TestStationPassw0rd1',
  tokens: ['tok_abcdefghijklmnopqrstuvwxyz012345'],
  pins: ['123456'],
  identifiers: ['E00401501A2B3C4D', 'Novák'],
};
const basic = Buffer.from(`${known.stationId}:${known.password}`).toString('base64');

describe('findLeaks', () => {
  it.each([
    ['the password', `{"msg":"x","pw":"${known.password}"}`, 'station password'],
    ['the Basic value', `authorization: Basic ${basic}`, 'Basic credential of the station'],
    ['any Basic credential', 'Authorization: Basic dXNlcjpzZWNyZXRwYXNz', 'a Basic credential'],
    ['a known token', `token=${known.tokens[0]}`, 'technician token'],
    ['any bearer token', 'authorization: Bearer 0123456789abcdefXYZ', 'a bearer token'],
    ['a PIN typed', '{"msg":"PIN entered","value":"123456"}', 'PIN'],
    ['a PIN in a sentence', 'pin 123456 entered', 'PIN'],
    ['a PIN ending a sentence', 'the PIN was 123456.', 'PIN'],
    ['a pin field with a value', '{"pin":"99"}', 'a "pin" field with a value'],
    ['a password field with a value', '{"password":"hunter2"}', 'a "password" field with a value'],
    ['a known card UID', '{"msg":"identifier scanned","v":"E00401501A2B3C4D"}', 'patron identifier'],
    ['a known name in a sentence', 'welcome, Jana Novák', 'patron identifier'],
    ['any identifier field not masked', '{"identifierValue":"31234000000033"}', 'an identifier field "identifierValue" not masked'],
    ['an item id half masked', '{"itemId":"3123400***"}', 'an identifier field "itemId" not masked'],
  ])('finds %s', (_name, text, what) => {
    expect(findLeaks('t', text, known).map((l) => l.what)).toContain(what);
  });

  it('passes redacted values and ordinary text', () => {
    const clean = [
      '{"pin":"[redacted]","authorization":"[redacted]"}',
      '{"headers":{"authorization":"Basic ***"}}',
      '{"msg":"PIN entered","length":6}',
      '{"tokens":2,"box":5}',
      // The PIN's digits inside a UUID or a longer number are not the PIN.
      '{"eventId":"a1123456-0000-4000-8000-000000000000","traceId":"5d2c-1234567"}',
      // Nor either part of a decimal number (a monotonic time in ms, its fraction six digits).
      '{"startedAt":40750.123456,"ms":5.78}',
      '{"ms":123456.5}',
      // Identifiers as maskIdentifier shows them.
      '{"identifierValue":"***033 (14)","itemId":"*** (4)","uid":"***C4D (16)"}',
    ];
    for (const t of clean) expect(findLeaks('t', t, known), t).toEqual([]);
  });

  it('masks the secret in the context it reports', () => {
    const [leak] = findLeaks('log', `a ${known.password} b`, { ...known, pins: [] });
    expect(leak?.context).not.toContain(known.password);
    expect(leak?.context).toContain('<20 chars>');
  });
});

describe('filesUnder', () => {
  it('reads every file below a folder, none for a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'journal.json'), '{"a":1}');
    writeFileSync(join(dir, 'sub', 'x'), 'y');
    expect(
      filesUnder(dir)
        .map(([p]) => p.slice(dir.length))
        .sort(),
    ).toEqual(['/journal.json', '/sub/x']);
    expect(filesUnder(join(dir, 'absent'))).toEqual([]);
    expect(filesUnder(null)).toEqual([]);
  });
});
