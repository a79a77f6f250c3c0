/** The technician status names the journal and its problem (the alarms page and metrics read it). */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.js';
import { startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('GET /api/status journal', () => {
  it('is ok with no problem normally', async () => {
    d = await startDebugHarness();
    const { body } = await d.call('GET', '/api/status', { token: d.tokens.read });
    expect(body['journal']).toEqual({ ok: true, problem: null, location: 'memory' });
  });

  it('names a journal that was damaged at start; the first /state says it once, the server log shows it', async () => {
    const problem = '/var/lib/pickup-station/journal.log damaged: record 3 of 9: checksum mismatch; set aside as journal.log.damaged-x';
    d = await startDebugHarness({ journal: new MemoryJournal([], problem) });
    const { body } = await d.call('GET', '/api/status', { token: d.tokens.read });
    expect(body['journal']).toEqual({ ok: true, problem, location: 'memory' });
    const first = await d.h.server.waitForRequest((r) => r.endpoint === 'state');
    expect(first.body).toMatchObject({ st: 'DOWN', errorMessage: `journal: ${problem}` });
    const second = await d.h.server.waitForRequest((r) => r.endpoint === 'state' && r.seq > first.seq);
    expect(second.body).toMatchObject({ st: 'UP' });
    expect(d.h.logs.some((l) => l.includes('journal damaged or unreadable'))).toBe(true);
  });
});
