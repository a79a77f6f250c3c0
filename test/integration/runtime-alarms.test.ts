/**
 * Alarm flows end to end: the real runtime on simulated hardware against the reference server over
 * real HTTP on 127.0.0.1 — a forced door, the three door outcomes, a door left ajar, the tamper
 * switch, the PIN throttle (wrong PINs the server really refuses, the `exception` fault, a restart
 * on the same state directory).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES, SEED_PIN_MULTI, SEED_PIN_SINGLE, SEED_UNKNOWN_PIN, type RequestRecord } from '../../src/reference-server/index.js';
import { box, sleep, waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

type StateBody = { st: string; errorMessage: string | null; boxes: { id: string; st: string }[] };
const body = (r: RequestRecord): StateBody => r.body as StateBody;
const idle = (x: Harness) => waitFor('idle', () => x.station.runtime.snapshot().mode.kind === 'idle' && x.station.runtime.snapshot().inFlight === null);
const logLines = (x: Harness): { level: number; msg: string; outcome?: string; box?: number }[] =>
  x.logs.map((l) => JSON.parse(l) as { level: number; msg: string });
const stateAfter = (x: Harness, seq: number, pred: (b: StateBody) => boolean) =>
  x.server.waitForRequest((r) => r.endpoint === 'state' && pred(body(r)), 5_000, { afterSeq: seq });

describe('forced open and the three door outcomes', () => {
  it('a door opened without a command: /state at once naming it (UP), an error log line, held until it closes', async () => {
    h = await startHarness();
    await idle(h);
    const seq = h.server.lastSeq;
    h.sim.forceOpen(3);
    const forced = await stateAfter(h, seq, (b) => b.errorMessage !== null);
    expect(body(forced)).toMatchObject({ st: 'UP', errorMessage: 'box 3 forced open' });
    expect(body(forced).boxes).toContainEqual({ id: box(3), st: 'OPEN' });
    expect(forced.notes).toContain('box 3 OPEN without an action (forced door?)');
    expect(logLines(h)).toContainEqual(
      expect.objectContaining({ level: 50, msg: 'box 3 forced open: opened without a command', outcome: 'opened-without-command' }),
    );
    // Held: every /state names it while the door is open.
    const held = await stateAfter(h, forced.seq, () => true);
    expect(body(held).errorMessage).toBe('box 3 forced open');
    h.sim.closeDoor(3);
    const closed = await stateAfter(h, held.seq, (b) => b.boxes.every((x) => x.st === 'CLOSED'));
    expect(body(closed)).toMatchObject({ st: 'UP', errorMessage: null });
  });

  it('commanded and opened / commanded not opened / opened without a command: three outcomes in the logs', async () => {
    h = await startHarness({ timing: { doorOpenTimeoutMs: 300 } });
    await idle(h);
    // commanded and opened: a deposit
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.sim.closeDoor(1);
    await idle(h);
    // commanded, not opened: a jammed lock on a pickup (PIN 123456 opens box 4)
    h.sim.locks.jammed.add(4);
    h.sim.typePin(SEED_PIN_SINGLE);
    const notOpened = await h.server.waitForRequest((r) => r.endpoint === 'state' && (body(r).errorMessage ?? '').includes('did not open'));
    expect(body(notOpened)).toMatchObject({ st: 'DOWN', errorMessage: 'box 4 did not open' });
    await idle(h);
    // opened without a command: the jammed door opens by itself later
    h.sim.forceOpen(4);
    await waitFor('forced-open alarm', () => h!.station.runtime.snapshot().alarms.length === 1);

    const outcomes = logLines(h)
      .filter((l) => l.outcome !== undefined)
      .map((l) => [l.level, l.msg, l.outcome]);
    expect(outcomes).toEqual([
      [30, 'box 1 opened (commanded)', 'commanded-opened'],
      [50, 'box 4 did not open: no OPEN within 300 ms of the pulse', 'commanded-not-opened'],
      [50, 'box 4 forced open: opened without a command', 'opened-without-command'],
    ]);
    expect(h.station.runtime.snapshot().doorOutcomes).toEqual({ [box(1)]: 'commanded-opened', [box(4)]: 'opened-without-command' });
  });
});

describe('door ajar', () => {
  it('a box left open past doorAjarMs: /state names it, the display reminds, the buzzer plays the reminder; closing ends it', async () => {
    h = await startHarness({ timing: { doorAjarMs: 1_500, doorAjarReminderMs: 1_000 } });
    await idle(h);
    h.sim.typePin(SEED_PIN_MULTI);
    await waitFor('closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    const ajar = await h.server.waitForRequest((r) => r.endpoint === 'state' && (body(r).errorMessage ?? '').includes('box 6 open for'));
    expect(body(ajar)).toMatchObject({ st: 'UP', errorMessage: 'box 5 open for 2 s; box 6 open for 2 s' });
    await waitFor('reminder on the display', () => h!.sim.display.lastShown().join() === 'Please close box 5, 6');
    await waitFor('reminder pattern twice', () => h!.sim.buzzer.beeps.filter((b) => b.ms === 200).length >= 4);
    h.sim.closeDoor(5);
    h.sim.closeDoor(6);
    const closed = await stateAfter(h, ajar.seq, (b) => b.boxes.every((x) => x.st === 'CLOSED'));
    expect(body(closed).errorMessage).toBeNull();
    await idle(h);
    expect(h.station.runtime.snapshot().alarms).toEqual([]);
  });
});

describe('tamper', () => {
  it('open: /state DOWN "tamper" at once, customer input refused; closed: UP again and a scan works', async () => {
    h = await startHarness();
    await idle(h);
    const seq = h.server.lastSeq;
    h.sim.openTamper();
    const down = await stateAfter(h, seq, (b) => b.st === 'DOWN');
    expect(body(down).errorMessage).toBe('tamper');
    h.sim.scanBarcode(SEED_BARCODES[0]);
    h.sim.typePin(SEED_PIN_SINGLE);
    await sleep(300);
    expect(h.server.requests.filter((r) => r.endpoint === 'item-identify' || r.endpoint === 'pin-enter')).toEqual([]);
    expect(h.sim.display.lastShown()).toEqual(['Station out of service', 'please ask the staff']);
    h.sim.closeTamper();
    const up = await stateAfter(h, down.seq, (b) => b.st === 'UP');
    expect(body(up).errorMessage).toBeNull();
    await idle(h);
    await sleep(250); // past the duplicate-scan window
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
  });
});

describe('PIN throttle', () => {
  /** Type `pin` and wait for the server's answer to it. */
  async function tryPin(x: Harness, pin: string): Promise<RequestRecord> {
    await idle(x);
    const seq = x.server.lastSeq;
    x.sim.typePin(pin);
    return x.server.waitForRequest((r) => r.endpoint === 'pin-enter', 5_000, { afterSeq: seq });
  }

  it('5 PINs the server refuses lock the keypad with a countdown; nothing is sent while locked; after it a good PIN resets the count', async () => {
    h = await startHarness({ pin: { lockoutMs: 2_000 } });
    for (let i = 0; i < 5; i++) expect((await tryPin(h, SEED_UNKNOWN_PIN)).status).toBe(404);
    await waitFor('lock-out screen', () => h!.sim.display.lastShown()[0] === 'Too many wrong PINs');
    expect(h.sim.display.lastShown()[1]).toMatch(/^try again in 0:0[12]$/);
    const lockedState = await h.server.waitForRequest((r) => r.endpoint === 'state' && (body(r).errorMessage ?? '').includes('keypad locked'));
    expect(body(lockedState)).toMatchObject({ st: 'UP', errorMessage: 'keypad locked for 2 s after 5 wrong PINs' });
    const before = h.server.requests.filter((r) => r.endpoint === 'pin-enter').length;
    h.sim.typePin(SEED_PIN_SINGLE);
    await sleep(300);
    expect(h.server.requests.filter((r) => r.endpoint === 'pin-enter')).toHaveLength(before);
    await waitFor('unlocked', () => h!.station.runtime.snapshot().pinThrottle.lockout === null, 5_000);
    expect((await tryPin(h, SEED_PIN_SINGLE)).response).toMatchObject({ type: 'box-open' });
    await waitFor('count reset by the pickup', () => h!.station.runtime.snapshot().pinThrottle.failures === 0);
  });

  it("the reference server's exception fault answers valid PINs as wrong: they count like any other", async () => {
    h = await startHarness({ pin: { maxFailures: 2, lockoutMs: 1_000 } });
    h.server.setFault('pin-enter', 'exception', { times: 2 });
    expect((await tryPin(h, SEED_PIN_SINGLE)).fault).toBe('exception');
    expect((await tryPin(h, SEED_PIN_MULTI)).fault).toBe('exception');
    await waitFor('locked', () => h!.station.runtime.snapshot().pinThrottle.lockout !== null);
  });

  it('a restart on the same state directory keeps the lock-out (its own file, written atomically)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'station-state-'));
    h = await startHarness({ pin: { lockoutMs: 60_000 }, storage: { directory: dir } });
    for (let i = 0; i < 5; i++) await tryPin(h, SEED_UNKNOWN_PIN);
    await waitFor('locked', () => h!.station.runtime.snapshot().pinThrottle.lockout !== null);
    await h.stop();
    expect(JSON.parse(readFileSync(join(dir, 'pin-throttle.json'), 'utf8'))).toEqual({ version: 1, failures: 5, lockoutMs: 60_000 });

    h = await startHarness({ pin: { lockoutMs: 60_000 }, storage: { directory: dir } });
    expect(h.station.runtime.snapshot().pinThrottle).toMatchObject({ failures: 5, lockout: { ms: 60_000 } });
    await idle(h);
    expect(h.sim.display.lastShown()).toEqual(['Too many wrong PINs', expect.stringMatching(/^try again in (1:00|0:59)$/)]);
    h.sim.typePin(SEED_PIN_SINGLE);
    await sleep(300);
    expect(h.server.requests.filter((r) => r.endpoint === 'pin-enter')).toEqual([]);
  });
});
