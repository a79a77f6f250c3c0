/**
 * A reload applies each config key as its schema declares (src/config/apply.ts): `live` keys at
 * once, `station` keys through the in-process station restart, `process` keys not until the
 * process restarts (answered in restartNeeded, compared with the config the process started with).
 * Real station, reference server and technician port on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { applyClasses } from '../../src/config/apply.js';
import { configSchema } from '../../src/config/schema.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const reload = async (d: DebugHarness, change: Record<string, unknown>) => {
  writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, ...change }));
  return d.call('POST', '/api/reload');
};

describe('every config key declares how a reload applies it', () => {
  it('the schema walk finds a class for every key, and the keys read once at start are `process`', () => {
    const classes = applyClasses(configSchema);
    expect(classes.get('log.level')).toBe('live');
    expect(classes.get('debug.tokens')).toBe('live');
    expect(classes.get('server.answerTimeoutMs')).toBe('station');
    expect(classes.get('timing.heartbeatIntervalMs')).toBe('station');
    for (const once of [
      'timing.drainLimitMs',
      'timing.firstReportHeadStartMs',
      'debug.enabled',
      'debug.listen',
      'debug.logLines',
      'metrics.enabled',
      'metrics.textfileDir',
    ])
      expect(classes.get(once), once).toBe('process');
    expect(classes.size).toBeGreaterThan(50);
  });
});

describe('reload, key class by key class', () => {
  it('live: a removed technician token is refused at once; nothing to restart', async () => {
    d = await startDebugHarness();
    await idle(d);
    expect((await d.call('GET', '/api/status', { token: d.tokens.read })).status).toBe(200);
    const debug = { ...d.configInput.debug, tokens: (d.configInput.debug?.tokens ?? []).filter((t) => t.scope !== 'read') };
    const r = await reload(d, { debug, log: { level: 'warn' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ reloaded: true, restartNeeded: [] });
    expect((await d.call('GET', '/api/status', { token: d.tokens.read })).status).toBe(401);
    expect(d.h.log.level).toBe('warn');
  });

  it('station: the restarted station runs with the new protocol and timing values', async () => {
    d = await startDebugHarness();
    await idle(d);
    const before = d.wp.station.runtime;
    const r = await reload(d, { server: { ...d.configInput.server, answerTimeoutMs: 4_321 }, timing: { ...d.configInput.timing, heartbeatIntervalMs: 1_234 } });
    expect(r.body).toEqual({ reloaded: true, restartNeeded: [] });
    expect(d.wp.station.runtime).not.toBe(before);
    expect(d.wp.station.config.server.answerTimeoutMs).toBe(4_321);
    expect(d.wp.station.config.timing.heartbeatIntervalMs).toBe(1_234);
  });

  it('process: answered in restartNeeded until the process restarts, however many reloads come between; the port keeps its address', async () => {
    d = await startDebugHarness();
    await idle(d);
    const changed = {
      timing: { ...d.configInput.timing, drainLimitMs: 1_000 },
      debug: { ...d.configInput.debug, logLines: 50 },
      metrics: { ...d.configInput.metrics, textfileIntervalMs: 20_000 },
    };
    const first = await reload(d, changed);
    expect(first.body).toEqual({ reloaded: true, restartNeeded: ['timing.drainLimitMs', 'debug.logLines', 'metrics.textfileIntervalMs'] });
    // The same file again: still not in effect, still said.
    const again = await reload(d, changed);
    expect(again.body).toEqual({ reloaded: true, restartNeeded: ['timing.drainLimitMs', 'debug.logLines', 'metrics.textfileIntervalMs'] });
    expect(d.wp.port?.url).toBe(d.url);
    // Back to what the process started with: nothing waits for a restart any more.
    const back = await reload(d, {});
    expect(back.body).toEqual({ reloaded: true, restartNeeded: [] });
  });

  it("a heartbeat interval at or above the server's 2-minute unavailability window is a config error with its path; the running station stays", async () => {
    d = await startDebugHarness();
    await idle(d);
    const before = d.wp.station.runtime;
    const r = await reload(d, { timing: { ...d.configInput.timing, heartbeatIntervalMs: 120_000 } });
    expect(r.status).toBe(422);
    expect(r.body['problems']).toEqual([
      expect.objectContaining({ path: 'timing.heartbeatIntervalMs', message: expect.stringMatching(/below 120000 .*unavailable after 2 minutes/) }),
    ]);
    expect(d.wp.station.runtime).toBe(before);
  });
});
