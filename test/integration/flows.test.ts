/**
 * End-to-end flows: the real runtime on simulated hardware against the reference server over
 * real HTTP on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES, SEED_PIN_MULTI, SEED_PIN_SINGLE, SEED_RFID, SEED_UNKNOWN_BARCODE, type RequestRecord } from '../../src/reference-server/index.js';
import { box, waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const of = (h: Harness, endpoint: string): RequestRecord[] => h.server.requests.filter((r) => r.endpoint === endpoint);
const responseType = (r: RequestRecord | undefined): unknown => (r?.response as { type?: string } | null)?.type;
const idle = (h: Harness) => waitFor('idle', () => h.station.runtime.snapshot().mode.kind === 'idle' && h.station.runtime.snapshot().inFlight === null);

describe('deposit', () => {
  it('scan -> box-open -> pulse -> /state OPEN -> wait-for-closing cancellable -> close -> /state CLOSED -> wait-for-input', async () => {
    h = await startHarness();
    await idle(h);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const identify = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(identify.body).toMatchObject({ station: h.config.station.id, identifierType: 'BAR_CODE', identifierValue: SEED_BARCODES[0] });
    expect(responseType(identify)).toBe('box-open');

    const opened = await h.server.waitForRequest((r) => r.endpoint === 'state' && JSON.stringify(r.body).includes('"OPEN"'));
    expect((opened.body as { boxes: unknown[] }).boxes).toContainEqual({ id: box(1), st: 'OPEN' });
    expect(opened.response).toMatchObject({ type: 'wait-for-closing', boxes: [box(1)], cancellable: true });
    expect(h.sim.locks.pulses).toEqual([{ box: 1, ms: 50 }]);
    await waitFor('closing mode', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    expect(h.sim.display.lastShown()).toEqual((opened.response as { displayMessages: string[] }).displayMessages);

    h.sim.closeDoor(1);
    const closed = await h.server.waitForRequest(
      (r) => r.endpoint === 'state' && r.seq > opened.seq && (r.body as { boxes: { st: string }[] }).boxes.every((b) => b.st === 'CLOSED'),
    );
    expect(responseType(closed)).toBe('wait-for-input');
    await idle(h);
    expect(h.server.stationState(h.config.station.id).storedDeposits.map((d) => d.identifierValue)).toEqual([SEED_BARCODES[0]]);
  });

  it('an RFID read deposits as RFID', async () => {
    h = await startHarness();
    await idle(h);
    h.sim.scanRfid(SEED_RFID);
    const identify = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(identify.body).toMatchObject({ identifierType: 'RFID', identifierValue: SEED_RFID });
    await waitFor('pulse', () => h!.sim.locks.pulses.length === 1);
    expect(h.sim.locks.pulses[0]?.box).toBe(3);
  });
});

describe('pickup', () => {
  it('PIN -> box-open of several boxes -> both pulsed -> /state OPEN -> close both -> wait-for-input', async () => {
    h = await startHarness();
    await idle(h);
    h.sim.typePin(SEED_PIN_MULTI);
    const pin = await h.server.waitForRequest((r) => r.endpoint === 'pin-enter');
    expect(pin.body).toMatchObject({ pin: SEED_PIN_MULTI });
    expect(pin.response).toMatchObject({ type: 'box-open', boxes: [box(5), box(6)] });
    const opened = await h.server.waitForRequest((r) => r.endpoint === 'state' && r.seq > pin.seq);
    expect((opened.body as { boxes: unknown[] }).boxes).toEqual(
      expect.arrayContaining([
        { id: box(5), st: 'OPEN' },
        { id: box(6), st: 'OPEN' },
      ]),
    );
    expect(opened.response).toMatchObject({ type: 'wait-for-closing', cancellable: false });
    expect(h.sim.locks.pulses.map((p) => p.box)).toEqual([5, 6]);
    await waitFor('closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.sim.closeDoor(5);
    h.sim.closeDoor(6);
    await waitFor('pickup done', () => h!.server.stationState(h!.config.station.id).usedPickups.length === 1);
    await idle(h);
  });
});

describe('cancel', () => {
  it('cancel while cancellable -> /cancel -> wait-for-closing; pressing again is refused locally', async () => {
    h = await startHarness({ timing: { messageMs: 2_000 } });
    await idle(h);
    h.sim.scanBarcode(SEED_BARCODES[1]);
    await waitFor('closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.sim.pressCancel();
    const cancel = await h.server.waitForRequest((r) => r.endpoint === 'cancel');
    expect(cancel.response).toMatchObject({ type: 'wait-for-closing', boxes: [box(2)], cancellable: false });
    await waitFor('cancel answered', () => h!.station.runtime.snapshot().inFlight === null);
    // Not cancellable any more: the station refuses locally, nothing sent.
    h.sim.pressCancel();
    await waitFor('cannot-cancel message', () => h!.sim.display.lastShown().join() === h!.config.messages.cannotCancel.join());
    expect(of(h, 'cancel')).toHaveLength(1);
    h.sim.closeDoor(2);
    await idle(h);
    expect(h.server.stationState(h.config.station.id).storedDeposits).toEqual([]);
  });

  it("a cancel the server refuses shows the server's messages and is not resent", async () => {
    h = await startHarness({ timing: { messageMs: 5_000 } });
    await idle(h);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.server.setFault('cancel', { kind: 'exception500', displayMessages: ['Cannot cancel now'] }, { times: 1 });
    h.sim.pressCancel();
    await waitFor('server message shown', () => h!.sim.display.lastShown().join() === 'Cannot cancel now');
    expect(h.station.runtime.snapshot().mode.kind).toBe('closing');
    expect(of(h, 'cancel')).toHaveLength(1); // an exception is an answer: never resent
  });

  it('CannotCancelException 400 from the reference server: its messages shown, still waiting for the door', async () => {
    h = await startHarness({ timing: { messageMs: 5_000 } });
    await idle(h);
    h.sim.typePin(SEED_PIN_SINGLE);
    await h.server.waitForRequest((r) => r.endpoint === 'pin-enter');
    // A pickup is not cancellable; a faulty answer offers cancel anyway, and the server's /cancel refuses.
    h.server.setFault(
      'state',
      { kind: 'malformed', body: { type: 'wait-for-closing', boxes: [box(4)], displayMessages: ['x'], cancellable: true } },
      { times: 1 },
    );
    await waitFor('closing, cancellable', () => {
      const m = h!.station.runtime.snapshot().mode;
      return m.kind === 'closing' && m.cancellable;
    });
    h.sim.pressCancel();
    const cancel = await h.server.waitForRequest((r) => r.endpoint === 'cancel');
    expect(cancel.status).toBe(400);
    expect(cancel.response).toMatchObject({ type: 'exception', exceptionType: 'CannotCancelException' });
    const messages = (cancel.response as { displayMessages: string[] }).displayMessages;
    await waitFor('refusal shown', () => h!.sim.display.lastShown().join() === messages.join());
    expect(h.station.runtime.snapshot().mode.kind).toBe('closing');
  });
});

describe('station-disable', () => {
  it('shows the text, refuses input, keeps the heartbeat, and comes back', async () => {
    h = await startHarness();
    await idle(h);
    h.server.disableStation(h.config.station.id, ['Closed for inventory']);
    await waitFor('disabled', () => h!.station.runtime.snapshot().mode.kind === 'disabled', 10_000);
    expect(h.sim.display.lastShown()).toEqual(['Closed for inventory']);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const before = of(h, 'state').length;
    await waitFor('heartbeat continues', () => of(h!, 'state').length >= before + 1, 10_000);
    expect(of(h, 'item-identify')).toHaveLength(0);
    h.server.enableStation(h.config.station.id);
    await idle(h);
  });
});

describe('exception answers', () => {
  it('an unknown item shows the server messages, then the prompt again; nothing resent', async () => {
    h = await startHarness();
    await idle(h);
    const prompt = h.sim.display.lastShown();
    h.sim.scanBarcode(SEED_UNKNOWN_BARCODE);
    const r = await h.server.waitForRequest((x) => x.endpoint === 'item-identify');
    expect(r.status).toBe(404);
    const messages = (r.response as { displayMessages: string[] }).displayMessages;
    await waitFor('exception messages shown', () => h!.sim.display.lastShown().join() === messages.join());
    await waitFor('prompt again', () => h!.sim.display.lastShown().join() === prompt.join());
    expect(of(h, 'item-identify')).toHaveLength(1);
    expect(h.sim.locks.pulses).toEqual([]);
  });
});

describe('unanswered -> deactivated -> recovery', () => {
  it('resends the same eventId 3 times, enters deactivated mode, sends only /state, and recovers on an answered heartbeat', async () => {
    h = await startHarness({ server: { answerTimeoutMs: 600 } });
    await idle(h);
    h.server.setFault('*', { kind: 'delay', ms: 5_000 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('deactivated', () => h!.station.runtime.snapshot().mode.kind === 'deactivated', 15_000);
    const attempts = of(h, 'item-identify');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.eventId)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.traceId)).size).toBe(3);
    expect(attempts.map((a) => a.body)).toEqual([attempts[0]!.body, attempts[0]!.body, attempts[0]!.body]);
    // resent one answer timeout apart
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(580);
    expect(h.sim.display.lastShown()).toEqual(h.config.messages.stationOff);

    // Deactivated: input refused, only the heartbeat goes on.
    h.sim.scanBarcode(SEED_BARCODES[1]);
    h.sim.typePin(SEED_PIN_SINGLE);
    const seq = h.server.requests.length;
    await waitFor('heartbeats while deactivated', () => h!.server.requests.slice(seq).filter((r) => r.endpoint === 'state').length >= 2, 15_000);
    expect(h.server.requests.slice(seq).every((r) => r.endpoint === 'state')).toBe(true);

    h.server.clearFaults();
    await waitFor('back in service', () => h!.station.runtime.snapshot().mode.kind === 'idle', 15_000);
    expect(h.sim.display.lastShown()).not.toEqual(h.config.messages.stationOff);
  });

  it.each(['html502', 'drop', 'non-json'] as const)('%s counts as unanswered: resent with the same eventId', async (kind) => {
    h = await startHarness({ server: { answerTimeoutMs: 1_000 } });
    await idle(h);
    h.server.setFault('item-identify', kind, { times: 2 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('third attempt answered and box opened', () => h!.sim.locks.pulses.length === 1, 15_000);
    const attempts = of(h, 'item-identify');
    expect(attempts.map((a) => a.fault)).toEqual([kind, kind, null]);
    expect(new Set(attempts.map((a) => a.eventId)).size).toBe(1);
  });
});

describe('commands that must not open a box', () => {
  it('a malformed box-open (no boxes) opens nothing; the next /state is DOWN with an errorMessage', async () => {
    h = await startHarness();
    await idle(h);
    h.server.setFault('item-identify', { kind: 'malformed', body: { type: 'box-open' } }, { times: 1 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const down = await h.server.waitForRequest((r) => r.endpoint === 'state' && (r.body as { st: string }).st === 'DOWN');
    expect((down.body as { errorMessage: string }).errorMessage).toMatch(/rejected command to \/item-identify: malformed command: boxes/);
    expect(of(h, 'item-identify')).toHaveLength(1);
    expect(h.sim.locks.pulses).toEqual([]);
  });

  it('an unknown command type opens nothing', async () => {
    h = await startHarness();
    await idle(h);
    h.server.setFault('item-identify', { kind: 'malformed', body: { type: 'self-destruct', boxes: [box(1)] } }, { times: 1 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await h.server.waitForRequest((r) => r.endpoint === 'state' && (r.body as { st: string }).st === 'DOWN');
    expect(h.sim.locks.pulses).toEqual([]);
  });

  it("a box id that is not this station's opens nothing, not even the station's own boxes in the same command", async () => {
    h = await startHarness();
    await idle(h);
    const foreign = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
    h.server.setFault('item-identify', { kind: 'malformed', body: { type: 'box-open', boxes: [box(1), foreign], displayMessages: [] } }, { times: 1 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const down = await h.server.waitForRequest((r) => r.endpoint === 'state' && (r.body as { st: string }).st === 'DOWN');
    expect((down.body as { errorMessage: string }).errorMessage).toContain(foreign);
    expect(h.sim.locks.pulses).toEqual([]);
  });

  it('unknown extra fields in an answer are ignored', async () => {
    h = await startHarness();
    await idle(h);
    h.server.setFault('*', 'extra-fields');
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('box opened despite extra fields', () => h!.sim.locks.pulses.length === 1);
  });
});
