/**
 * Read scope (acceptance 2): status with mode, last contact, events with trace ids the server saw,
 * boxes with lock and door, device health, version, config without secrets; the log tail; the live
 * stream of protocol events, display lines and box changes, with keep-alives and cleanup.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES } from '../../src/reference-server/index.js';
import type { BoxStatusView, EventView } from '../../src/technician/status.js';
import { VERSION } from '../../src/version.js';
import { box, STATION, waitFor } from '../support/shared.js';
import { idle, readStream, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('GET /api/status', () => {
  it('reports mode, last server contact, events with the trace ids the server received, boxes, devices, version', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing, pulse over', () => d!.h.station.runtime.snapshot().mode.kind === 'closing' && !d!.h.sim.locks.isEnergized(1));
    const { status, body } = await d.call('GET', '/api/status', { token: d.tokens.read });
    expect(status).toBe(200);
    expect(body).toMatchObject({ version: VERSION, stationId: d.h.config.station.id, mode: 'closing', service: false, hardware: 'simulated' });
    expect(body['lastServerContactAgeMs']).toEqual(expect.any(Number));

    const events = body['events'] as EventView[];
    const identify = events.find((e) => e.endpoint === 'item-identify');
    expect(identify).toMatchObject({ attempts: 1, outcome: 'box-open' });
    // In order: the last contact is the scan's answer or later, so no older than the scan's event.
    expect(body['lastServerContactAgeMs'] as number).toBeLessThanOrEqual(identify!.ageMs);
    const seen = d.h.server.requests.find((r) => r.endpoint === 'item-identify');
    expect(identify?.eventId).toBe((seen?.body as { event: string }).event);
    expect(identify?.traceIds).toEqual([seen?.traceId]);

    const boxes = body['boxes'] as BoxStatusView[];
    expect(boxes).toHaveLength(8);
    expect(boxes[0]).toMatchObject({
      number: 1,
      id: box(1),
      door: 'OPEN',
      lockEnergized: false,
      lines: { lock: 'simulated lock 1', door: 'simulated door switch 1' },
      outcome: 'commanded-opened',
      alarms: [],
    });
    expect(boxes[0]?.lastAction?.what).toBe('opened (deposit)');
    expect(boxes[1]).toMatchObject({ number: 2, door: 'CLOSED', lastAction: null });
    expect(body['display']).toEqual(d.h.sim.display.lastShown());
    const devices = body['devices'] as { name: string; ok: boolean }[];
    expect(devices.map((x) => x.name)).toEqual(expect.arrayContaining(['simulated barcode scanner', 'simulated keypad', 'simulated display']));
    expect(devices.every((x) => x.ok)).toBe(true);
  });

  it('shows the config without token hashes or the password', async () => {
    d = await startDebugHarness();
    const { text, body } = await d.call('GET', '/api/status');
    const cfg = body['config'] as { technician: { tokens: unknown[] }; station: { id: string } };
    expect(cfg.station.id).toBe(d.h.config.station.id);
    expect(cfg.technician.tokens).toEqual([
      { name: 'reader-tech', scope: 'read' },
      { name: 'alice', scope: 'service' },
      { name: 'prometheus', scope: 'metrics' },
    ]);
    expect(text).not.toMatch(/sha256:/);
    expect(text).not.toContain(STATION.password);
  });

  it('GET /api/events lists the last events', async () => {
    d = await startDebugHarness();
    await idle(d);
    const { body } = await d.call('GET', '/api/events?limit=1', { token: d.tokens.read });
    const events = body['events'] as EventView[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ endpoint: 'state', attempts: 1, outcome: 'wait-for-input' });
  });
});

describe('GET /api/logs', () => {
  it('returns the newest N log lines (JSON, already redacted)', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.typePin('654321');
    await d.h.server.waitForRequest((r) => r.endpoint === 'pin-enter');
    const { status, body } = await d.call('GET', '/api/logs?lines=5', { token: d.tokens.read });
    expect(status).toBe(200);
    const lines = body['lines'] as string[];
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(JSON.parse(l)).toHaveProperty('msg');
    const all = (await d.call('GET', '/api/logs?lines=1000')).text;
    expect(all).toContain('PIN entered');
    expect(all).not.toContain('654321');
    expect(all).not.toContain(STATION.password);
  });

  it('the log stream sends the backlog, then new lines as they are written', async () => {
    d = await startDebugHarness();
    const s = await readStream(d, '/api/logs/stream?lines=3');
    await waitFor('backlog', () => s.events.length >= 3);
    d.h.log.warn({ marker: 'xyzzy' }, 'a new line');
    await waitFor('new line', () => s.events.some((e) => JSON.stringify(e.data).includes('xyzzy')));
    s.close();
  });
});

describe('GET /api/events/stream', () => {
  it('streams the status first, then protocol events, display lines and box changes of a deposit', async () => {
    d = await startDebugHarness();
    await idle(d);
    const s = await readStream(d, '/api/events/stream');
    await waitFor('status first', () => s.events[0]?.event === 'status');
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('box OPEN', () => s.events.some((e) => e.event === 'box' && e.data['state'] === 'OPEN'));
    await waitFor('event-done', () => s.events.some((e) => e.event === 'event-done' && (e.data['record'] as EventView).endpoint === 'item-identify'));
    const kinds = new Set(s.events.map((e) => e.event));
    for (const k of ['event-sent', 'event-done', 'display', 'box', 'lock', 'mode']) expect(kinds, k).toContain(k);
    const done = s.events.find((e) => e.event === 'event-done')?.data['record'] as EventView;
    expect(done.traceIds[0]).toMatch(/^[0-9a-f-]{36}$/);
    for (const e of s.events) expect(e.data['at'] ?? e.data['version']).toBeTruthy();
    s.close();
  });

  it('sends keep-alive comments while idle and releases its subscription when the client goes', async () => {
    d = await startDebugHarness({ technician: { keepAliveMs: 100 } });
    const s = await readStream(d, '/api/events/stream');
    expect(d.wp.supervisor.observer.subscribers).toBe(1);
    await waitFor('keep-alives', () => s.comments.filter((c) => c === ': keep-alive').length >= 2, 3_000);
    s.close();
    await waitFor('unsubscribed on disconnect', () => d!.wp.supervisor.observer.subscribers === 0);
  });

  it('refuses streams beyond technician.maxStreams with 503', async () => {
    d = await startDebugHarness({ technician: { maxStreams: 1 } });
    const s = await readStream(d, '/api/events/stream');
    const r = await d.call('GET', '/api/logs/stream');
    expect(r.status).toBe(503);
    s.close();
    await waitFor('closed', () => d!.wp.supervisor.observer.subscribers === 0);
    const again = await readStream(d, '/api/logs/stream');
    again.close();
  });
});
