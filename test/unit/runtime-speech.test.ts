/**
 * Speech and time to act through the runtime under fake timers, on simulated hardware: what the core
 * decides (core/assist.ts, core/time-to-act.ts) reaches the audio output in order (a key's tone,
 * then the screen), a new screen cuts the announcement playing, the help controls are told when
 * more time is offered and when the patron has gone, and a failing audio output is named in /state
 * without putting the station DOWN.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { SimSpeech } from '../../src/devices/simulated/speech.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';
import type { RequestBodies } from '../../src/protocol/types.js';
import { StationRuntime } from '../../src/station/runtime.js';
import { ScriptedSender } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;

async function started(extra: Partial<ConfigInput> = {}, speech = new SimSpeech()) {
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: [1, 2].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    hardware: { kind: 'simulated', doorSpringMs: 100 },
    ...extra,
  });
  if (!config) throw new Error(JSON.stringify(problems));
  const sim = new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  const hardware: StationHardware = {
    ...sim,
    scanners: sim.scanners,
    keypad: sim.keypad,
    display: sim.display,
    speech,
    assist: sim.assist,
    devices: () => [...sim.devices().filter((d) => d !== sim.speech), speech],
    close: () => sim.close(),
  };
  const sender = new ScriptedSender(() => ({ kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } }));
  const runtime = new StationRuntime({ config, hardware, client: sender, log: pino({ level: 'silent' }) });
  await runtime.start();
  await vi.advanceTimersByTimeAsync(0);
  return { runtime, sim, speech, sender };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('speech through the runtime', () => {
  it('the speech button: the prompt and the instructions; PIN keys: tones only, in order with the screen they lead to', async () => {
    const { sim, speech, runtime } = await started();
    sim.pressAssist('speech');
    await vi.advanceTimersByTimeAsync(0);
    expect(speech.heard.map((u) => u.kind)).toEqual(['say']);
    expect(speech.heard[0]!.text).toMatch(/^Scan an item\. or enter your pin\. Speech is on\./);
    expect(speech.heard[0]!.voice).toBe('en-us');
    sim.typePin('123', false);
    await vi.advanceTimersByTimeAsync(0);
    expect(speech.heard.slice(1).map((u) => `${u.kind} ${u.text}`)).toEqual(['tone 880Hz/70ms', 'tone 880Hz/70ms', 'tone 880Hz/70ms']);
    sim.pressKey({ kind: 'enter' });
    await vi.advanceTimersByTimeAsync(0);
    // Enter's tone, then the screen it led to (too short: the PIN has 6 digits; "PIN" said as a word).
    expect(speech.heard.slice(4).map((u) => `${u.kind} ${u.text}`)).toEqual(['tone 880Hz/80ms 0Hz/30ms 1320Hz/140ms', 'say The pin has 6 digits.']);
    await runtime.stop();
  });

  it('a new screen cuts the announcement playing', async () => {
    const { sim, speech, runtime } = await started({}, new SimSpeech(50));
    sim.pressAssist('speech');
    await vi.advanceTimersByTimeAsync(500);
    expect(speech.speaking).toBe(true);
    sim.pressKey({ kind: 'enter' });
    await vi.advanceTimersByTimeAsync(0);
    expect(speech.heard[0]!.cut).toBe(true);
    // Enter's tone plays whole (250 ms), then the new screen.
    await vi.advanceTimersByTimeAsync(250);
    expect(speech.heard.slice(1).map((u) => [u.kind, u.cut])).toEqual([
      ['tone', false],
      ['say', false],
    ]);
    expect(speech.heard.at(-1)!.text).toBe('The pin has 6 digits.');
    await runtime.stop();
  });

  it('a warning tells the help controls more time is offered, sounds the buzzer, and the button takes it back; the patron gone, the controls are told', async () => {
    const { sim, runtime } = await started({ timing: { pinIdleMs: 40_000, sessionEndMs: 60_000 } });
    const beeps = sim.buzzer.beeps.length;
    sim.pressKey({ kind: 'digit', digit: '5' });
    await vi.advanceTimersByTimeAsync(19_999);
    expect(sim.assistControls.moreTimeOffered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sim.assistControls.moreTimeOffered).toBe(true);
    expect(sim.buzzer.beeps.length - beeps).toBeGreaterThanOrEqual(2); // accepted, then the warning's first beep
    sim.pressAssist('more-time');
    await vi.advanceTimersByTimeAsync(0);
    expect(sim.assistControls.moreTimeOffered).toBe(false);
    expect(runtime.snapshot().pin).toBe('5');
    await vi.advanceTimersByTimeAsync(40_000);
    expect(runtime.snapshot().pin).toBe('');
    expect(sim.assistControls.sessionsEnded).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sim.assistControls.sessionsEnded).toBe(1);
    await runtime.stop();
  });

  it('an audio output that fails is named in /state, the station stays UP; required, it goes DOWN', async () => {
    const { speech, sender, runtime } = await started({ timing: { heartbeatIntervalMs: 1_000 } });
    speech.simulateHealth(false, 'audio output default: no sound card');
    await vi.advanceTimersByTimeAsync(1_000);
    const last = sender.of('state').at(-1) as RequestBodies['state'];
    expect(last).toMatchObject({ st: 'UP', errorMessage: 'speech: audio output default: no sound card' });
    await runtime.stop();
    const required = await started({ timing: { heartbeatIntervalMs: 1_000 }, speech: { required: true } });
    required.speech.simulateHealth(false, 'audio output default: no sound card');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(required.sender.of('state').at(-1)).toMatchObject({ st: 'DOWN', errorMessage: 'speech: audio output default: no sound card' });
    await required.runtime.stop();
  });

  it('a key held on the keypad turns speech on', async () => {
    const { sim, speech, runtime } = await started();
    sim.holdKey({ kind: 'digit', digit: '5' });
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.snapshot().assist.requested).toBe(true);
    expect(speech.heard.filter((u) => u.kind === 'say')).toHaveLength(1);
    await runtime.stop();
  });
});
