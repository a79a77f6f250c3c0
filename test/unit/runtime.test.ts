/**
 * The runtime under fake timers: heartbeat cadence, door-open timeout, PIN idle timeout, pulse
 * length and locks OFF on stop — driven with vi.advanceTimersByTimeAsync on simulated hardware.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { validateConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { StationRuntime } from '../../src/station/runtime.js';
import type { ProtocolSender, SendOutcome } from '../../src/protocol/client.js';
import { ScriptedSender, waitForInput } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;

function config(overrides: Record<string, unknown> = {}): Config {
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: [1, 2, 3].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    hardware: { kind: 'simulated', doorSpringMs: 100 },
    ...overrides,
  });
  if (!config) throw new Error(JSON.stringify(problems));
  return config;
}

async function started<S extends ProtocolSender = ScriptedSender>(cfg = config(), sender: S = new ScriptedSender(() => waitForInput) as ProtocolSender as S) {
  const hardware = new SimulatedHardware({
    boxNumbers: [1, 2, 3],
    doorSpringMs: cfg.hardware.kind === 'simulated' ? cfg.hardware.doorSpringMs : 0,
    inputVoltage: 12,
    internetSignalStrength: 100,
  });
  const runtime = new StationRuntime({ config: cfg, hardware, client: sender, log: pino({ level: 'silent' }) });
  await runtime.start();
  await vi.advanceTimersByTimeAsync(0);
  return { runtime, hardware, sender };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('runtime timers', () => {
  it('sends /state at start and then exactly once per heartbeat interval (spec default 30 s)', async () => {
    const { sender, runtime } = await started();
    expect(sender.of('state')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(sender.of('state')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sender.of('state')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sender.of('state')).toHaveLength(4);
    const events = sender.of('state').map((b) => b.event);
    expect(new Set(events).size).toBe(4); // a fresh eventId every time
    for (const e of events) expect(e).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await runtime.stop();
  });

  it('a /state after a box opens restarts the heartbeat interval', async () => {
    const sender = new ScriptedSender(() => waitForInput);
    const { hardware, runtime } = await started(config(), sender);
    await vi.advanceTimersByTimeAsync(10_000);
    hardware.forceOpen(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state')).toHaveLength(2);
    expect(sender.of('state')[1]?.boxes).toContainEqual({ id: BOX(2), st: 'OPEN' });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(sender.of('state')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sender.of('state')).toHaveLength(3);
    await runtime.stop();
  });

  it('reports a jammed box as not opened after the door-open timeout', async () => {
    const sender = new ScriptedSender((endpoint) =>
      endpoint === 'item-identify' ? { kind: 'command', command: { type: 'box-open', boxes: [BOX(1)], displayMessages: [] } } : waitForInput,
    );
    const { hardware, runtime } = await started(config({ timing: { doorOpenTimeoutMs: 2_000 } }), sender);
    hardware.locks.jammed.add(1);
    hardware.scanBarcode('123');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(hardware.locks.pulses).toEqual([{ box: 1, ms: 600 }]);
    expect(sender.of('state')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const last = sender.of('state').at(-1);
    expect(last).toMatchObject({ st: 'DOWN', errorMessage: 'box 1 did not open' });
    expect(last?.boxes).toContainEqual({ id: BOX(1), st: 'CLOSED' });
    await runtime.stop();
  });

  it('energizes a lock for exactly the configured pulse, then OFF', async () => {
    const sender = new ScriptedSender((endpoint) =>
      endpoint === 'pin-enter' ? { kind: 'command', command: { type: 'box-open', boxes: [BOX(3)], displayMessages: [] } } : waitForInput,
    );
    const { hardware, runtime } = await started(config({ locks: { pulseMs: 500 } }), sender);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(1);
    expect(hardware.locks.isEnergized(3)).toBe(true);
    await vi.advanceTimersByTimeAsync(498);
    expect(hardware.locks.isEnergized(3)).toBe(true);
    await vi.advanceTimersByTimeAsync(2);
    expect(hardware.locks.isEnergized(3)).toBe(false);
    await runtime.stop();
  });

  it('energizes the first lock in the tick of its answer (before any promise hop), the next ones one after another', async () => {
    const sender = new ScriptedSender((endpoint) =>
      endpoint === 'pin-enter' ? { kind: 'command', command: { type: 'box-open', boxes: [BOX(1), BOX(2)], displayMessages: [] } } : waitForInput,
    );
    const { hardware, runtime } = await started(config({ locks: { pulseMs: 500 } }), sender);
    const order: string[] = [];
    // Write, then pulse: each pulse record precedes its lock.
    const record = runtime.journal.record.bind(runtime.journal);
    vi.spyOn(runtime.journal, 'record').mockImplementation((entry) => {
      if (entry.t === 'pulse') order.push(`journal pulse ${entry.boxId === BOX(1) ? 1 : 2}`);
      record(entry);
    });
    runtime.onEvent((e) => {
      if (e.type === 'lock') order.push(`lock ${e.number} ${e.energized ? 'on' : 'off'}`);
      if (e.type === 'event-done' && e.record.endpoint === 'pin-enter') {
        order.push('answer');
        // Runs at the first promise hop after the answer is handed to the core.
        queueMicrotask(() => order.push('next microtask'));
      }
    });
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['answer', 'journal pulse 1', 'lock 1 on', 'next microtask']);
    await vi.advanceTimersByTimeAsync(500);
    expect(order.slice(4)).toEqual(['lock 1 off', 'journal pulse 2', 'lock 2 on']);
    expect(hardware.locks.isEnergized(1)).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    expect(order.slice(7)).toEqual(['lock 2 off']);
    expect(hardware.locks.pulses).toEqual([
      { box: 1, ms: 500 },
      { box: 2, ms: 500 },
    ]);
    await runtime.stop();
  });

  it('stop() drives the lock OFF in the middle of a pulse', async () => {
    const sender = new ScriptedSender((endpoint) =>
      endpoint === 'pin-enter' ? { kind: 'command', command: { type: 'box-open', boxes: [BOX(1)], displayMessages: [] } } : waitForInput,
    );
    const { hardware, runtime } = await started(config({ locks: { pulseMs: 2_000 } }), sender);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(100);
    expect(hardware.locks.isEnergized(1)).toBe(true);
    const stopping = runtime.stop();
    await vi.advanceTimersByTimeAsync(0);
    expect(hardware.locks.isEnergized(1)).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    await stopping;
  });

  it('clears a typed PIN after the idle timeout', async () => {
    const { hardware, runtime } = await started(config({ timing: { pinIdleMs: 10_000 } }));
    hardware.typePin('12', false);
    await vi.advanceTimersByTimeAsync(0);
    expect(hardware.display.lastShown()).toEqual(['Scan or PIN', 'PIN: **']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runtime.snapshot().pin).toBe('');
    expect(hardware.display.lastShown()).toEqual(['Scan or PIN']);
    await runtime.stop();
  });

  it('an unhealthy device makes /state DOWN with its errorMessage at once', async () => {
    const { hardware, sender, runtime } = await started();
    hardware.barcode.simulateHealth(false, 'barcode scanner /dev/serial/by-id/usb-scanner missing');
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'DOWN', errorMessage: 'barcode scanner /dev/serial/by-id/usb-scanner missing' });
    await runtime.stop();
  });

  it('/state carries inputVoltage and internetSignalStrength from the power sources', async () => {
    const { sender, runtime } = await started();
    expect(sender.of('state')[0]).toMatchObject({ station: STATION.id, inputVoltage: 12, internetSignalStrength: 100 });
    await runtime.stop();
  });
});

describe('firstReportWritten (the daemon loads its technician port after it)', () => {
  /** A client whose first /state is written at once but answered only when the test says so. */
  function heldClient(reportsWrites: boolean) {
    let answer: () => void = () => undefined;
    const client: ProtocolSender = {
      send: (endpoint, body, _signal, control) =>
        new Promise<SendOutcome>((resolve) => {
          if (reportsWrites) control?.onWritten?.(1);
          answer = () => resolve({ eventId: body.event, endpoint, attempts: [], result: { kind: 'answered', answer: waitForInput } });
        }),
    };
    return { client, answer: () => answer() };
  }
  const flag = (p: Promise<void>) => {
    const seen = { done: false };
    void p.then(() => (seen.done = true));
    return seen;
  };

  it('resolves once the start /state is written, before its answer', async () => {
    const { client, answer } = heldClient(true);
    const { runtime } = await started(config(), client);
    const written = flag(runtime.firstReportWritten());
    await vi.advanceTimersByTimeAsync(0);
    expect(written.done).toBe(true);
    answer();
    await runtime.stop();
  });

  it('with a client that does not report writes: once the /state is answered; and at the latest when the station stops', async () => {
    const held = heldClient(false);
    const { runtime } = await started(config(), held.client);
    const written = flag(runtime.firstReportWritten());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written.done).toBe(false);
    held.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(written.done).toBe(true);
    await runtime.stop();

    const never = heldClient(false);
    const second = await started(config(), never.client);
    const stopped = flag(second.runtime.firstReportWritten());
    const stopping = second.runtime.stop();
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped.done).toBe(true);
    never.answer();
    await stopping;
  });
});
