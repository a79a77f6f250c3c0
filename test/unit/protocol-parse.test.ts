/** What a server response means: answer, invalid command, or unanswered (resend). */
import { describe, expect, it } from 'vitest';
import { UnansweredError } from '../../src/errors.js';
import { parseServerResponse } from '../../src/protocol/parse.js';

const B = '11111111-1111-4111-8111-111111111111';

describe('parseServerResponse', () => {
  it('a valid command with unknown fields ignored', () => {
    expect(parseServerResponse(200, 'application/json', JSON.stringify({ type: 'box-open', boxes: [B], displayMessages: ['a'], extra: { x: 1 } }))).toEqual({
      kind: 'command',
      command: { type: 'box-open', boxes: [B], displayMessages: ['a'] },
    });
    expect(parseServerResponse(200, undefined, '{"type":"wait-for-closing","boxes":["' + B + '"]}')).toEqual({
      kind: 'command',
      command: { type: 'wait-for-closing', boxes: [B], displayMessages: [], cancellable: false },
    });
  });

  it.each([400, 404, 409, 500, 503, 200])('the exception body with HTTP %i is an answer', (status) => {
    expect(parseServerResponse(status, 'application/json', '{"type":"exception","exceptionType":"CannotCancelException","displayMessages":["No"]}')).toEqual({
      kind: 'exception',
      status,
      exceptionType: 'CannotCancelException',
      displayMessages: ['No'],
    });
  });

  it.each([
    ['unknown type', { type: 'open-sesame', boxes: [B] }],
    ['box-open without boxes', { type: 'box-open' }],
    ['box-open with empty boxes', { type: 'box-open', boxes: [] }],
    ['box-open with a non-UUID', { type: 'box-open', boxes: ['box-1'] }],
    ['box-open with an uppercase UUID', { type: 'box-open', boxes: ['AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA'] }],
    ['box-open with duplicate ids', { type: 'box-open', boxes: [B, B] }],
    ['displayMessages not strings', { type: 'wait-for-input', displayMessages: [1] }],
    ['an array', [1, 2]],
  ])('HTTP 200 JSON that is not a valid command is invalid: %s', (_name, body) => {
    expect(parseServerResponse(200, 'application/json', JSON.stringify(body)).kind).toBe('invalid');
  });

  it.each([
    [502, 'text/html', '<html><body>Bad Gateway</body></html>'],
    [200, 'text/plain', 'OK'],
    [503, 'application/json', '{"error":"busy"}'],
    [401, 'application/json', '{"message":"nope"}'],
  ])('HTTP %i %s not of the protocol counts as unanswered', (status, ct, body) => {
    expect(() => parseServerResponse(status, ct, body)).toThrow(UnansweredError);
  });

  it('a redirect is unanswered and named as one (never followed)', () => {
    expect(() => parseServerResponse(307, 'text/html', '<html>moved</html>')).toThrow(/HTTP 307: a redirect, not followed/);
    expect(() => parseServerResponse(302, 'application/json', '{"type":"box-open","boxes":["' + B + '"]}')).toThrow(UnansweredError);
  });

  it('an empty body is unanswered and named as empty', () => {
    expect(() => parseServerResponse(200, 'application/json', '')).toThrow(/HTTP 200 application\/json: empty body/);
  });
});
