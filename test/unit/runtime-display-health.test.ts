/**
 * A display's health as the station reports it (src/station/inputs.ts, core/faults.ts,
 * core/outbound.ts): on a station that takes PINs only through its display (a kiosk alone), the
 * display's problem is a fault — /state DOWN with it; on one that takes them without it (a kiosk
 * beside a tactile keypad: `servesWithoutDisplay`), the same words in /state's errorMessage with st
 * UP, while the station goes on taking PINs. Cleared, either way, once the display is well.
 */
import { describe, expect, it } from 'vitest';
import { DeviceBase, faulty, HEALTHY } from '../../src/devices/device-base.js';
import type { DeviceHealth, StationHardware } from '../../src/devices/types.js';
import type { Input } from '../../src/station/core-types.js';
import { watchDeviceHealth } from '../../src/station/inputs.js';
import { answered, idleStepper, logs, pinKeys, sends, states, timer, waitForInput } from '../support/core-driver.js';

class FakeDisplay extends DeviceBase {
  set(h: DeviceHealth): void {
    this.setHealth(h);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const PROBLEM = 'display (kiosk page 127.0.0.1:8091): no page on the screen for 20 s: its event stream has closed (the browser or its page ended)';

/** The inputs the wiring dispatches for a display whose health goes bad, then well again. */
async function dispatched(servesWithoutDisplay: boolean | undefined): Promise<[Input[], Input[]]> {
  const display = new FakeDisplay('display (kiosk page 127.0.0.1:8091)');
  const hw = { display, servesWithoutDisplay, devices: () => [display] } as unknown as StationHardware;
  const seen: Input[] = [];
  watchDeviceHealth(hw, { dispatch: (i) => seen.push(i) });
  display.set(faulty(PROBLEM));
  await Promise.resolve();
  const bad = seen.splice(0);
  display.set(HEALTHY);
  await Promise.resolve();
  return [bad, seen.splice(0)];
}

describe("the display's problem", () => {
  it('a kiosk alone (the only way to enter a PIN): a fault, /state DOWN naming it; cleared: UP', async () => {
    const [bad, well] = await dispatched(undefined);
    expect(bad).toEqual([{ type: 'fault', key: 'device:display (kiosk page 127.0.0.1:8091)', message: PROBLEM }]);
    const st = idleStepper();
    expect(states(st.feed(...bad)).at(-1)).toMatchObject({ st: 'DOWN', errorMessage: PROBLEM });
    st.feed(answered('state', waitForInput));
    expect(states(st.feed(...well)).at(-1)).toMatchObject({ st: 'UP', errorMessage: null });
    const [alone] = await dispatched(false);
    expect(alone[0]?.type).toBe('fault');
  });

  it('a kiosk beside a tactile keypad: named in /state with st UP, PINs still taken; cleared: no longer named', async () => {
    const [bad, well] = await dispatched(true);
    expect(bad).toEqual([{ type: 'degraded', key: 'device:display (kiosk page 127.0.0.1:8091)', message: PROBLEM }]);
    const st = idleStepper();
    const raised = st.feed(...bad);
    expect(states(raised).at(-1)).toMatchObject({ st: 'UP', errorMessage: PROBLEM });
    expect(logs(raised)).toContainEqual({ level: 'warn', msg: 'problem (the station serves on)' });
    st.feed(answered('state', waitForInput));
    // Every heartbeat names it while it lasts.
    expect(states(st.feed(timer('heartbeat'))).at(-1)).toMatchObject({ st: 'UP', errorMessage: PROBLEM });
    st.feed(answered('state', waitForInput));
    // A PIN typed on the tactile keypad goes to the server.
    expect(sends(st.feed(...pinKeys('123456')))).toEqual([{ endpoint: 'pin-enter', pin: '123456' }]);
    st.feed(answered('pin-enter', waitForInput));
    const cleared = st.feed(...well);
    expect(logs(cleared)).toContainEqual({ level: 'info', msg: 'problem cleared (the station served through it)' });
    expect(states(cleared).at(-1)).toMatchObject({ st: 'UP', errorMessage: null });
  });

  it('a fault of another device still puts the station DOWN beside a degraded display', async () => {
    const [bad] = await dispatched(true);
    const st = idleStepper();
    st.feed(...bad, answered('state', waitForInput));
    const fx = st.feed({ type: 'fault', key: 'device:barcode scanner', message: 'barcode scanner missing' });
    expect(states(fx).at(-1)).toMatchObject({ st: 'DOWN', errorMessage: `barcode scanner missing; ${PROBLEM}` });
  });
});
