/**
 * GET /metrics on the technician port, started the way the daemon starts it (startSupervised):
 * the real station on simulated hardware against the reference server over HTTP on 127.0.0.1.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startStation } from '../../src/app.js';
import { startSupervised } from '../../src/supervised.js';
import { MemoryJournal } from '../../src/journal/memory.js';
import { LogRing } from '../../src/log.js';
import { SEED_BARCODES, SEED_PIN_MULTI, SEED_UNKNOWN_PIN } from '../../src/reference-server/index.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { STATION, waitFor } from '../support/shared.js';
import { startHarness, type Harness, type HarnessOverrides } from '../support/harness.js';
import { parseExposition, type Exposition } from '../support/prom-text.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

async function scrape(dh: DebugHarness, token: string | null = dh.tokens.metrics): Promise<Exposition> {
  const r = await dh.call('GET', '/metrics', { token });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(r.text);
}

const station = STATION.id;

describe('GET /metrics: auth', () => {
  it('answers a metrics, read or service token; a metrics token may do nothing else; no or a wrong token is 401; /healthz stays open', async () => {
    d = await startDebugHarness();
    for (const token of [d.tokens.metrics, d.tokens.read, d.tokens.service]) expect((await d.call('GET', '/metrics', { token })).status).toBe(200);
    expect((await d.call('GET', '/metrics', { token: null })).status).toBe(401);
    expect((await d.call('GET', '/metrics', { token: 'pst_' + 'A'.repeat(43) })).status).toBe(401);
    expect((await d.call('GET', '/api/status', { token: d.tokens.metrics })).status).toBe(403);
    expect((await d.call('GET', '/api/logs', { token: d.tokens.metrics })).status).toBe(403);
    expect((await d.call('POST', '/api/service', { token: d.tokens.metrics, body: { on: true } })).status).toBe(403);
    expect((await d.call('GET', '/healthz', { token: null })).status).toBe(200);
  });

  it('is a 404 when metrics are off', async () => {
    d = await startDebugHarness({ metrics: { enabled: false } });
    expect(d.wp.metrics).toBeNull();
    expect((await d.call('GET', '/metrics', { token: d.tokens.metrics })).status).toBe(404);
  });
});

describe('GET /metrics: what it counts', () => {
  it('a deposit: events by endpoint and outcome, attempts, answer latency, the pulse and door of box 1, mode, power, devices, build and process metrics', async () => {
    d = await startDebugHarness();
    await idle(d);
    const before = await scrape(d);
    expect(before.value('pickup_station_mode', { station, mode: 'idle' })).toBe(1);
    expect(before.value('pickup_station_mode', { station, mode: 'deactivated' })).toBe(0);
    for (let n = 1; n <= STATION.boxes.length; n++) expect(before.value('pickup_station_lock_pulses_total', { station, box: String(n) })).toBe(0);
    const statesBefore = before.value('pickup_station_events_total', { station, endpoint: 'state', outcome: 'wait-for-input' });
    expect(statesBefore).toBeGreaterThanOrEqual(1);

    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
    const open = await scrape(d);
    expect(open.value('pickup_station_events_total', { station, endpoint: 'item-identify', outcome: 'box-open' })).toBe(1);
    expect(open.value('pickup_station_event_attempts_total', { station, endpoint: 'item-identify' })).toBe(1);
    // Every answered event has its answer time: the /state answers so far and the /item-identify.
    const answered = open.find('pickup_station_events_total', { station }).reduce((n, x) => n + x.value, 0);
    expect(open.value('pickup_station_answer_duration_seconds_count', { station })).toBe(answered);
    expect(open.value('pickup_station_answer_duration_seconds_bucket', { station, le: '+Inf' })).toBe(answered);
    const sum = open.value('pickup_station_answer_duration_seconds_sum', { station });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(2 * answered); // each within the harness's answer time-out
    expect(open.value('pickup_station_lock_pulses_total', { station, box: '1' })).toBe(1);
    expect(open.value('pickup_station_lock_pulses_total', { station, box: '2' })).toBe(0);
    expect(open.value('pickup_station_door_open', { station, box: '1' })).toBe(1);
    expect(open.value('pickup_station_door_open', { station, box: '2' })).toBe(0);
    expect(open.value('pickup_station_mode', { station, mode: 'closing' })).toBe(1);

    d.h.sim.closeDoor(1);
    await idle(d);
    const after = await scrape(d);
    expect(after.value('pickup_station_door_open', { station, box: '1' })).toBe(0);
    expect(after.value('pickup_station_events_total', { station, endpoint: 'state', outcome: 'wait-for-closing' })).toBeGreaterThanOrEqual(1);
    expect(after.value('pickup_station_events_total', { station, endpoint: 'state', outcome: 'wait-for-input' })).toBeGreaterThan(statesBefore);
    // The harness's simulated measurements, as the last /state carried them.
    expect(after.value('pickup_station_input_voltage_volts', { station })).toBe(12.4);
    expect(after.value('pickup_station_signal_strength_percent', { station })).toBe(87);
    expect(after.value('pickup_station_state_answer_age_seconds', { station })).toBeLessThan(2);
    expect(after.value('pickup_station_faults', { station })).toBe(0);
    expect(after.value('pickup_station_device_up', { station, role: 'scanner', device: 'simulated barcode scanner' })).toBe(1);
    expect(
      after
        .find('pickup_station_device_up')
        .map((s) => s.labels['role'])
        .sort(),
    ).toEqual(['assist', 'button', 'buzzer', 'display', 'doors', 'keypad', 'locks', 'scanner', 'scanner', 'speech', 'tamper']);
    expect(after.find('pickup_station_build_info')[0]?.labels).toMatchObject({ node: process.version });
    expect(after.types.get('pickup_station_events_total')).toBe('counter');
    expect(after.types.get('pickup_station_answer_duration_seconds')).toBe('histogram');
    // prom-client's process metrics, in the station's namespace (node_exporter has process_* of its own).
    expect(after.value('pickup_station_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after.find('process_cpu_seconds_total')).toHaveLength(0);
  });

  it('a missing scanner: its device_up is 0 and a fault is counted, until it is back', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.barcode.simulateHealth(false, 'unplugged');
    const missing = await scrape(d);
    expect(missing.value('pickup_station_device_up', { station, role: 'scanner', device: 'simulated barcode scanner' })).toBe(0);
    expect(missing.value('pickup_station_faults', { station })).toBe(1);
    d.h.sim.barcode.simulateHealth(true);
    const back = await scrape(d);
    expect(back.value('pickup_station_device_up', { station, role: 'scanner', device: 'simulated barcode scanner' })).toBe(1);
    expect(back.value('pickup_station_faults', { station })).toBe(0);
  });

  it('alarms from the real flows, by kind: a forced door, the tamper switch, doors left ajar, a PIN lock-out; raised counted once, in force while they last', async () => {
    d = await startDebugHarness({ timing: { doorAjarMs: 1_000, doorAjarReminderMs: 60_000 }, pin: { maxFailures: 2, lockoutMs: 1_500 } });
    await idle(d);
    const alarms = async () => {
      const e = await scrape(d!);
      const by = (name: string): Record<string, number> => Object.fromEntries(e.find(name, { station }).map((x) => [x.labels['kind'] ?? '', x.value]));
      return { total: by('pickup_station_alarms_total'), active: by('pickup_station_alarm_active') };
    };
    expect(await alarms()).toEqual({
      total: { 'forced-open': 0, 'door-ajar': 0, tamper: 0, 'pin-lockout': 0, 'unknown-usb': 0 },
      active: { 'forced-open': 0, 'door-ajar': 0, tamper: 0, 'pin-lockout': 0, 'unknown-usb': 0 },
    });

    d.h.sim.forceOpen(3);
    await waitFor('forced-open raised', () => d!.wp.supervisor.station.runtime.snapshot().alarms.some((a) => a.kind === 'forced-open'));
    expect(await alarms()).toMatchObject({ total: { 'forced-open': 1 }, active: { 'forced-open': 1 } });
    d.h.sim.closeDoor(3);
    await waitFor('forced-open cleared', () => d!.wp.supervisor.station.runtime.snapshot().alarms.length === 0);
    expect(await alarms()).toMatchObject({ total: { 'forced-open': 1 }, active: { 'forced-open': 0 } });

    d.h.sim.openTamper();
    await waitFor('tamper raised', () => d!.wp.supervisor.station.runtime.snapshot().alarms.some((a) => a.kind === 'tamper'));
    expect(await alarms()).toMatchObject({ total: { tamper: 1 }, active: { tamper: 1 } });
    d.h.sim.closeTamper();
    await waitFor('tamper cleared', () => d!.wp.supervisor.station.runtime.snapshot().alarms.length === 0);
    await idle(d);

    d.h.sim.typePin(SEED_PIN_MULTI); // boxes 5 and 6, left open
    await waitFor('both doors ajar', () => d!.wp.supervisor.station.runtime.snapshot().alarms.filter((a) => a.kind === 'door-ajar').length === 2, 5_000);
    expect(await alarms()).toMatchObject({ total: { 'door-ajar': 2 }, active: { 'door-ajar': 2 } });
    d.h.sim.closeDoor(5);
    d.h.sim.closeDoor(6);
    await idle(d);
    expect(await alarms()).toMatchObject({ total: { 'door-ajar': 2 }, active: { 'door-ajar': 0 } });

    for (let i = 0; i < 2; i++) {
      await idle(d);
      const seq = d.h.server.lastSeq;
      d.h.sim.typePin(SEED_UNKNOWN_PIN);
      await d.h.server.waitForRequest((r) => r.endpoint === 'pin-enter', 5_000, { afterSeq: seq });
    }
    await waitFor('lock-out raised', () => d!.wp.supervisor.station.runtime.snapshot().alarms.some((a) => a.kind === 'pin-lockout'));
    const locked = await alarms();
    expect(locked).toMatchObject({ total: { 'pin-lockout': 1 }, active: { 'pin-lockout': 1 } });
    const e = await scrape(d);
    expect(e.value('pickup_station_events_total', { station, endpoint: 'pin-enter', outcome: 'exception' })).toBe(2);
    await waitFor('lock-out over', () => d!.wp.supervisor.station.runtime.snapshot().alarms.length === 0, 5_000);
    expect(await alarms()).toEqual({
      total: { 'forced-open': 1, 'door-ajar': 2, tamper: 1, 'pin-lockout': 1, 'unknown-usb': 0 },
      active: { 'forced-open': 0, 'door-ajar': 0, tamper: 0, 'pin-lockout': 0, 'unknown-usb': 0 },
    });
  });

  it('journal trouble: a journal damaged at start is a problem (its records still kept); a sound one is not', async () => {
    d = await startDebugHarness();
    await idle(d);
    const sound = await scrape(d);
    expect(sound.value('pickup_station_journal_ok', { station })).toBe(1);
    expect(sound.value('pickup_station_journal_problem', { station })).toBe(0);
    await d.stop();
    d = await startDebugHarness({ journal: new MemoryJournal([], 'journal.log damaged: record 3 of 9: checksum mismatch; set aside') });
    await idle(d);
    const damaged = await scrape(d);
    expect(damaged.value('pickup_station_journal_ok', { station })).toBe(1);
    expect(damaged.value('pickup_station_journal_problem', { station })).toBe(1);
  });

  it('a server that stops answering: unanswered events, attempts, deactivated mode and a deactivation, a growing /state age; back to idle when it answers', async () => {
    d = await startDebugHarness({ server: { answerTimeoutMs: 300 } });
    await idle(d);
    d.h.server.setFault('*', { kind: 'delay', ms: 5_000 });
    await waitFor('deactivated', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'deactivated', 15_000);
    const off = await scrape(d);
    expect(off.value('pickup_station_mode', { station, mode: 'deactivated' })).toBe(1);
    expect(off.value('pickup_station_deactivations_total', { station })).toBe(1);
    expect(off.value('pickup_station_events_total', { station, endpoint: 'state', outcome: 'unanswered' })).toBeGreaterThanOrEqual(1);
    expect(off.value('pickup_station_event_attempts_total', { station, endpoint: 'state' })).toBeGreaterThanOrEqual(3 + 1);
    const age = off.value('pickup_station_state_answer_age_seconds', { station });
    expect(age).toBeGreaterThan(0.6); // at least the three unanswered attempts
    d.h.server.clearFaults();
    await idle(d);
    const back = await scrape(d);
    expect(back.value('pickup_station_mode', { station, mode: 'idle' })).toBe(1);
    expect(back.value('pickup_station_deactivations_total', { station })).toBe(1);
    expect(back.value('pickup_station_state_answer_age_seconds', { station })).toBeLessThan(age);
  });
});

describe('GET /metrics: nothing secret, labels bounded by the config', () => {
  it('after a deposit, a pickup with a PIN and a technician action, no PIN, identifier, eventId, trace id, password or token appears, and every label value is from a closed set or the config', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
    d.h.sim.closeDoor(1);
    await idle(d);
    d.h.sim.typePin(SEED_PIN_MULTI);
    await waitFor('closing after PIN', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
    d.h.sim.closeDoor(5);
    d.h.sim.closeDoor(6);
    await idle(d);
    const text = (await d.call('GET', '/metrics', { token: d.tokens.metrics })).text;

    const secrets = [SEED_PIN_MULTI, SEED_BARCODES[0], STATION.password, d.tokens.metrics, d.tokens.read, d.tokens.service];
    for (const r of d.h.server.requests) secrets.push(...[r.eventId, r.traceId].filter((x): x is string => x !== null));
    for (const s of secrets) expect(text).not.toContain(s);

    const exp = parseExposition(text);
    const devices = d.wp.supervisor.station.hardware.devices().map((x) => x.name);
    const allowed: Record<string, (v: string) => boolean> = {
      station: (v) => v === STATION.id,
      box: (v) => /^[1-8]$/.test(v),
      endpoint: (v) => ['state', 'item-identify', 'pin-enter', 'cancel'].includes(v),
      outcome: (v) => ['wait-for-input', 'station-disable', 'box-open', 'wait-for-closing', 'exception', 'invalid', 'unanswered'].includes(v),
      mode: (v) => ['starting', 'idle', 'opening', 'closing', 'disabled', 'deactivated'].includes(v),
      kind: (v) => ['forced-open', 'door-ajar', 'tamper', 'pin-lockout', 'unknown-usb'].includes(v),
      device: (v) => devices.includes(v),
      role: (v) => ['locks', 'doors', 'scanner', 'keypad', 'button', 'display', 'tamper', 'buzzer', 'speech', 'assist', 'other'].includes(v),
      le: (v) => v === '+Inf' || Number.isFinite(Number(v)),
      version: (v) => /^\d+\.\d+\.\d+/.test(v),
      running: (v) => /^\d+\.\d+\.\d+/.test(v),
      installed: (v) => /^\d+\.\d+\.\d+/.test(v),
      node: (v) => v === process.version,
    };
    for (const s of exp.samples.filter(
      (x) => x.name.startsWith('pickup_station_') && !x.name.startsWith('pickup_station_process_') && !x.name.startsWith('pickup_station_nodejs_'),
    )) {
      // The installer's record names no release while nothing is pending or known bad (docs/monitoring.md).
      const noRelease = s.name === 'pickup_station_upgrade_pending' || s.name === 'pickup_station_release_known_bad';
      for (const [k, v] of Object.entries(s.labels)) expect((noRelease && k === 'version' && v === '') || allowed[k]?.(v), `${s.name} ${k}="${v}"`).toBe(true);
    }
  });
});

describe('without a technician port', () => {
  let h: Harness | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    await h?.stop();
    h = undefined;
    stop = undefined;
  });

  async function start(overrides: HarnessOverrides) {
    h = await startHarness(overrides);
    const wp = await startSupervised({
      station: h.station,
      loaded: { config: h.config, password: STATION.password, warnings: [] },
      configFile: null,
      env: {},
      log: h.log,
      ring: new LogRing(10),
      start: (l) => startStation({ config: l.config, password: l.password, log: h!.log }),
    });
    stop = () => wp.stop();
    return wp;
  }

  it('the textfile alone (a station whose port is off or a unix socket): the same series, rewritten as things happen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textfile-only-'));
    const wp = await start({ technician: { enabled: false }, metrics: { textfileDir: dir, textfileIntervalMs: 100 } });
    expect(wp.port).toBeNull();
    expect(wp.metrics).not.toBeNull();
    const file = join(dir, 'pickup-station.prom');
    const read = () => (readdirSync(dir).includes('pickup-station.prom') ? parseExposition(readFileSync(file, 'utf8')) : null);
    await waitFor('idle in the textfile', () => read()?.find('pickup_station_mode', { station, mode: 'idle' })[0]?.value === 1);
    h!.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('the pulse in the textfile', () => read()?.find('pickup_station_lock_pulses_total', { station, box: '1' })[0]?.value === 1);
  });

  it('neither a port nor a textfile: no metrics at all (prom-client is never loaded for nothing)', async () => {
    const wp = await start({ technician: { enabled: false } });
    expect(wp.metrics).toBeNull();
  });
});
