/** Transport failures named for a technician: the board clock, TLS trust, host name, DNS, refusal. */
import { describe, expect, it } from 'vitest';
import { describeTransportError } from '../../src/protocol/failure.js';

const err = (code: string, message: string): Error & { code: string } => Object.assign(new Error(message), { code });
const clock = (): Date => new Date('2000-01-01T00:00:42.000Z');

describe('describeTransportError', () => {
  it('a certificate not yet valid names the board clock and shows its time', () => {
    const r = describeTransportError(err('CERT_NOT_YET_VALID', 'certificate is not yet valid'), clock);
    expect(r).toBe(
      "board clock is behind: the server's certificate is not valid yet (board clock 2000-01-01T00:00:42.000Z; is time sync running?) [CERT_NOT_YET_VALID]",
    );
  });

  it.each([
    ['CERT_HAS_EXPIRED', 'certificate has expired', /expired, or the board clock is ahead \(board clock 2000-01-01/],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate', /not signed by a trusted CA \(server\.caFile\)/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', /not signed by a trusted CA/],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Host: localhost. is not in the cert's altnames", /certificate is for another host name/],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9', /^connection refused \[ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:9\]$/],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND pickup-server.invalid', /server name not found \(DNS\).*pickup-server\.invalid/],
    ['ECONNRESET', 'socket hang up', /connection reset/],
    ['ETIMEDOUT', 'Timeout awaiting request for 20000ms', /^no answer within the answer timeout$/],
    ['EWHATEVER', 'odd', /^EWHATEVER: odd$/],
  ])('%s', (code, message, expected) => {
    expect(describeTransportError(err(code, message), clock)).toMatch(expected);
  });

  it('an error without a code keeps its message', () => {
    expect(describeTransportError(new Error('boom'))).toBe('boom');
    expect(describeTransportError('plain')).toBe('plain');
  });
});
