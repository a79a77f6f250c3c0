/**
 * The technician reload: a token or password pasted into the wrong config key
 * reaches the 422 body as its path and the kind of problem, never as its value; the station's log
 * and the live log stream do not carry it either.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('POST /api/reload with secrets in the wrong keys', () => {
  it('422: paths and kinds only; the log has none of the values', async () => {
    d = await startDebugHarness();
    await idle(d);
    const password = 'Qw3rTy7uIo9pAs1dFg5h';
    const token = d.tokens.service;
    writeFileSync(
      d.configFile,
      JSON.stringify({
        ...d.configInput,
        station: { ...d.configInput.station, password },
        server: { ...d.configInput.server, attempts: `Bearer ${token}` },
        technician: { ...d.configInput.technician, tokens: [{ name: 'alice', scope: 'service', hash: token }] },
      }),
    );
    const r = await d.call('POST', '/api/reload');
    expect(r.status).toBe(422);
    const problems = r.body['problems'] as { path: string; message: string; value?: string }[];
    expect(problems.map((p) => p.path).sort()).toEqual(['server.attempts', 'station', 'technician.tokens.0.hash']);
    expect(problems.find((p) => p.path === 'station')?.message).toContain('unknown key "password"');
    for (const text of [r.text, ...d.h.logs, ...d.ring.tail(1000)]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.slice(4, 20));
    }
  });
});
