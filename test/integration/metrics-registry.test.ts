/**
 * The metrics registry and the service around it, fed runtime events directly (the events the
 * runtime emits; the station behind the view is simulated hardware with a core state set by hand).
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { metricsConfigSchema } from '../../src/metrics/config.js';
import { StationMetrics } from '../../src/metrics/registry.js';
import { MetricsService } from '../../src/metrics/service.js';
import type { CountedEvent, StationNow, StationView } from '../../src/metrics/view.js';
import { initialState } from '../../src/station/core.js';
import type { Alarm } from '../../src/station/core-types.js';
import type { EventRecord, RuntimeEvent } from '../../src/station/runtime.js';
import { sleep, waitFor } from '../support/shared.js';
import { parseExposition } from '../support/prom-text.js';

const ID = '5b1f4a52-9c3e-4d7a-8e21-0c6f3b9a7d10';
const BOXES = [
  { number: 1, id: '0c2d7e3a-4b1f-4c8e-9a6d-000000000001' },
  { number: 2, id: '0c2d7e3a-4b1f-4c8e-9a6d-000000000002' },
];

function fakeStation(id = ID) {
  const hw = new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 0, inputVoltage: 12, internetSignalStrength: 100 });
  const s = {
    state: initialState({ [BOXES[0]!.id]: 'CLOSED', [BOXES[1]!.id]: 'CLOSED' }),
    replacing: false,
    journal: { ok: true, problem: null as string | null },
  };
  const now: StationNow = {
    runtime: { snapshot: () => s.state, lastPower: () => ({ inputVoltage: 11.5, internetSignalStrength: null }), journalHealth: () => s.journal },
    hardware: hw,
    boxes: BOXES,
  };
  const view: StationView = { stationId: id, current: () => (s.replacing ? null : now) };
  return { s, view };
}

function done(endpoint: EventRecord['endpoint'], outcomeKind: EventRecord['outcomeKind'], answerMs: number | null, startedAt = 0, attempts = 1): CountedEvent {
  return {
    type: 'event-done',
    record: {
      endpoint,
      eventId: 'e',
      traceIds: [],
      attempts,
      outcome: outcomeKind,
      outcomeKind,
      failure: answerMs === null ? 'unanswered' : null,
      answerMs,
      startedAt,
      ms: answerMs ?? 60_000,
    },
  };
}

const tamper: Alarm = { kind: 'tamper', boxId: null, detail: 'cabinet opened' };
const forced: Alarm = { kind: 'forced-open', boxId: BOXES[1]!.id, detail: 'box 2 forced open' };

describe('StationMetrics', () => {
  it('counts alarms raised by kind (not cleared ones) and shows those in force from the core state', async () => {
    let t = 0;
    const m = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1000, now: () => t });
    const { s, view } = fakeStation();
    const rec = m.add(view);
    rec.note({ type: 'alarm', alarm: tamper, active: true });
    rec.note({ type: 'alarm', alarm: forced, active: true });
    rec.note({ type: 'alarm', alarm: forced, active: false });
    rec.note({ type: 'alarm', alarm: forced, active: true });
    s.state = { ...s.state, alarms: [tamper, forced] };
    t = 1000;
    const e = parseExposition(await m.render());
    expect(e.value('pickup_station_alarms_total', { kind: 'tamper' })).toBe(1);
    expect(e.value('pickup_station_alarms_total', { kind: 'forced-open' })).toBe(2);
    expect(e.value('pickup_station_alarms_total', { kind: 'door-ajar' })).toBe(0);
    expect(e.value('pickup_station_alarms_total', { kind: 'pin-lockout' })).toBe(0);
    expect(e.value('pickup_station_alarm_active', { kind: 'tamper' })).toBe(1);
    expect(e.value('pickup_station_alarm_active', { kind: 'forced-open' })).toBe(1);
    expect(e.value('pickup_station_alarm_active', { kind: 'door-ajar' })).toBe(0);
    expect(e.value('pickup_station_journal_ok')).toBe(1);
    expect(e.value('pickup_station_journal_problem')).toBe(0);
    s.journal = { ok: false, problem: 'cannot write /var/lib/pickup-station/journal.log: ENOSPC' };
    const full = parseExposition(await m.render());
    expect(full.value('pickup_station_journal_ok')).toBe(0);
    expect(full.value('pickup_station_journal_problem')).toBe(1);
    // A measurement the last /state did not carry is absent, not 0.
    expect(e.value('pickup_station_input_voltage_volts')).toBe(11.5);
    expect(e.find('pickup_station_signal_strength_percent')).toHaveLength(0);
    expect(e.find('pickup_station_process_cpu_seconds_total')).toHaveLength(0);
  });

  it("support_days_left counts down the release's declared support period by the wall clock; absent in a development build", async () => {
    let wall = Date.parse('2099-10-02T12:00:00Z');
    const vendor = { kind: 'release', securityContact: 'mailto:security@vendor.test.invalid', supportUntil: '2099-12-31' } as const;
    const m = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1000, vendor, wallClock: () => wall });
    m.add(fakeStation().view);
    const left = () => m.render().then((t) => parseExposition(t).value('pickup_station_support_days_left', { support_until: '2099-12-31' }));
    expect(await left()).toBe(90);
    wall = Date.parse('2099-12-31T23:59:59Z');
    expect(await left()).toBe(0);
    wall = Date.parse('2100-01-01T00:00:00Z');
    expect(await left()).toBe(-1);
    const dev = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1000, vendor: { kind: 'development' } });
    dev.add(fakeStation().view);
    expect(parseExposition(await dev.render()).find('pickup_station_support_days_left')).toHaveLength(0);
  });

  it('the /state age counts from the answer (the runtime clock), from the station start before one; unanswered ones do not reset it', async () => {
    const t = 10_000;
    const m = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1000, now: () => t });
    const { view } = fakeStation();
    const rec = m.add(view, 4_000);
    expect(parseExposition(await m.render()).value('pickup_station_state_answer_age_seconds')).toBe(6);
    rec.note(done('state', 'wait-for-input', 30, 8_000)); // finished at 8 030
    rec.note(done('item-identify', 'box-open', 20, 9_000));
    rec.note(done('state', 'unanswered', null, 9_500, 3));
    const e = parseExposition(await m.render());
    expect(e.value('pickup_station_state_answer_age_seconds')).toBeCloseTo(1.97, 6);
    expect(e.value('pickup_station_events_total', { endpoint: 'state', outcome: 'unanswered' })).toBe(1);
    expect(e.value('pickup_station_event_attempts_total', { endpoint: 'state' })).toBe(4);
    // Unanswered events have no answer time: 30 ms and 20 ms observed.
    expect(e.value('pickup_station_answer_duration_seconds_count')).toBe(2);
    expect(e.value('pickup_station_answer_duration_seconds_sum')).toBeCloseTo(0.05, 9);
    expect(e.value('pickup_station_answer_duration_seconds_bucket', { le: '0.025' })).toBe(1);
    expect(e.value('pickup_station_answer_duration_seconds_bucket', { le: '0.05' })).toBe(2);
  });

  it('keeps one series set per station (the fleet) and skips a station while it is being replaced', async () => {
    const m = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1000 });
    const a = fakeStation();
    const b = fakeStation('9f0e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f');
    m.add(a.view);
    const rb = m.add(b.view);
    expect(() => m.add(a.view)).toThrow(/already/);
    rb.note({ type: 'lock', boxId: BOXES[0]!.id, number: 1, energized: true });
    rb.note({ type: 'lock', boxId: BOXES[0]!.id, number: 1, energized: false });
    a.s.replacing = true;
    const e = parseExposition(await m.render());
    expect(e.value('pickup_station_lock_pulses_total', { station: b.view.stationId, box: '1' })).toBe(1);
    expect(e.value('pickup_station_lock_pulses_total', { station: ID, box: '1' })).toBe(0);
    expect(e.find('pickup_station_mode', { station: ID })).toHaveLength(0);
    expect(e.find('pickup_station_mode', { station: b.view.stationId })).toHaveLength(6);
    rb.remove();
    a.s.replacing = false;
    const after = parseExposition(await m.render());
    expect(after.find('pickup_station_door_open', { station: b.view.stationId })).toHaveLength(0);
    expect(after.find('pickup_station_door_open', { station: ID })).toHaveLength(2);
  });
});

describe('MetricsService', () => {
  let service: MetricsService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  function serviceWith(config: Record<string, unknown>) {
    const listeners = new Set<(e: RuntimeEvent | { type: string }) => void>();
    const { view } = fakeStation();
    const s = new MetricsService({
      config: metricsConfigSchema.parse(config),
      view,
      subscribe: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      log: pino({ level: 'silent' }),
    });
    return { s, emit: (e: RuntimeEvent | { type: string }) => listeners.forEach((l) => l(e)), listeners };
  }

  it('counts what happened before prom-client was loaded, and only the events metrics count', async () => {
    const { s, emit } = serviceWith({});
    service = s;
    s.start();
    emit({ type: 'technician' });
    emit({ type: 'display', lines: ['x'] });
    emit({ type: 'lock', boxId: BOXES[1]!.id, number: 2, energized: true });
    emit(done('item-identify', 'box-open', 15));
    const e = parseExposition((await s.scrape()).body);
    expect(e.value('pickup_station_lock_pulses_total', { box: '2' })).toBe(1);
    expect(e.value('pickup_station_events_total', { endpoint: 'item-identify', outcome: 'box-open' })).toBe(1);
    emit({ type: 'lock', boxId: BOXES[1]!.id, number: 2, energized: true });
    expect(parseExposition((await s.scrape()).body).value('pickup_station_lock_pulses_total', { box: '2' })).toBe(2);
  });

  it('writes the textfile atomically (no temp file left, a *.prom glob never sees one) and rewrites it every interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textfile-'));
    const { s, emit } = serviceWith({ textfileDir: dir, textfileIntervalMs: 100 });
    service = s;
    s.start();
    await s.load();
    const file = join(dir, 'pickup-station.prom');
    await waitFor('textfile', () => readdirSync(dir).includes('pickup-station.prom'));
    expect(parseExposition(readFileSync(file, 'utf8')).value('pickup_station_lock_pulses_total', { box: '1' })).toBe(0);
    emit({ type: 'lock', boxId: BOXES[0]!.id, number: 1, energized: true });
    await waitFor('rewritten', () => parseExposition(readFileSync(file, 'utf8')).value('pickup_station_lock_pulses_total', { box: '1' }) === 1);
    await s.stop();
    expect(readdirSync(dir)).toEqual(['pickup-station.prom']);
  });

  it('a textfile folder that cannot be written: warned once, the station goes on, written once it exists', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'textfile-')), 'later');
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
    const listeners = new Set<(e: RuntimeEvent | { type: string }) => void>();
    service = new MetricsService({
      config: metricsConfigSchema.parse({ textfileDir: dir, textfileIntervalMs: 100 }),
      view: fakeStation().view,
      subscribe: (l) => (listeners.add(l), () => listeners.delete(l)),
      log,
    });
    service.start();
    await service.load();
    await sleep(450);
    expect(lines.filter((l) => l.includes('cannot be written'))).toHaveLength(1);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    await waitFor('written once the folder exists', () => readdirSync(dir).includes('pickup-station.prom'));
    await waitFor('recovery logged', () => lines.some((l) => l.includes('written again')));
  });

  it('a relative textfile folder in the config file is against the folder of the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'textfile-config-'));
    writeFileSync(join(dir, 'pw'), 'TestStationPassw0rd1');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ station: { id: ID, passwordFile: 'pw', boxes: BOXES }, server: { baseUrl: 'http://127.0.0.1:1' }, metrics: { textfileDir: 'metrics' } }),
    );
    expect(loadConfigFile(join(dir, 'config.json'), {}).config.metrics.textfileDir).toBe(join(dir, 'metrics'));
  });

  it('rejects a relative textfile folder in a config given in process (nothing to resolve it against)', () => {
    expect(metricsConfigSchema.safeParse({ textfileDir: 'var/lib/node_exporter' }).success).toBe(false);
    expect(metricsConfigSchema.parse({})).toEqual({
      enabled: true,
      textfileDir: null,
      textfileIntervalMs: 15_000,
      eventLoopResolutionMs: 1_000,
      installStatusFile: '/opt/pickup-station/install-status.json',
      consoleLoginFile: '/var/log/btmp',
      credentialsCheckFile: '/run/pickup-station-metrics/pickup-station-credentials.prom',
    });
  });
});
