import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cancelledMessages,
  depositBoxOpenMessages,
  depositClosingMessages,
  pickupClosingMessages,
  PROMPT_MESSAGES,
} from '../../src/reference-server/messages.js';
import {
  DEMO_STATION,
  SEED_BARCODES,
  SEED_PIN_MULTI,
  SEED_PIN_SINGLE,
  SEED_RFID,
  SEED_UNKNOWN_BARCODE,
  SEED_UNKNOWN_PIN,
} from '../../src/reference-server/seed.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

let sim: SimFixture;
beforeEach(async () => {
  sim = await startSim();
  // Box actions need a recent heartbeat.
  expect((await sim.client.state()).json).toEqual({ type: 'wait-for-input', displayMessages: PROMPT_MESSAGES });
});
afterEach(() => sim.server.stop());

describe('deposit', () => {
  it('identify -> box-open -> OPEN -> wait-for-closing (cancellable) -> CLOSED -> wait-for-input, item stored', async () => {
    const { client, server } = sim;
    const open = await client.identify(SEED_BARCODES[0]);
    expect(open.status).toBe(200);
    expect(open.contentType).toBe('application/json');
    expect(open.json).toEqual({ type: 'box-open', boxes: [client.box(1)], displayMessages: depositBoxOpenMessages(1) });
    expect(server.stationState(DEMO_STATION.id).active).toMatchObject({ kind: 'deposit', boxes: [client.box(1)], cancellable: true });

    const closing = await client.state([1]);
    expect(closing.json).toEqual({ type: 'wait-for-closing', boxes: [client.box(1)], displayMessages: depositClosingMessages(1), cancellable: true });
    expect(depositClosingMessages(1)).toEqual(['Put the item in box 1', 'and close the door']);

    const idle = await client.state([]);
    expect(idle.json).toEqual({ type: 'wait-for-input', displayMessages: ['Scan an item', 'or enter your PIN'] });
    const st = server.stationState(DEMO_STATION.id);
    expect(st.active).toBeNull();
    expect(st.boxes[0]?.contents).toEqual([SEED_BARCODES[0]]);
    expect(st.storedDeposits.map((d) => d.identifierValue)).toEqual([SEED_BARCODES[0]]);
    expect(st.history.at(-1)).toMatchObject({ kind: 'deposit-stored', identifierValue: SEED_BARCODES[0], boxId: client.box(1) });
  });

  it('an RFID item opens its own box; an already deposited item gets 409', async () => {
    const { client } = sim;
    expect((await client.identify(SEED_RFID, 'RFID')).json).toMatchObject({ type: 'box-open', boxes: [client.box(3)] });
    await client.state([3]);
    await client.state([]);
    const again = await client.identify(SEED_RFID, 'RFID');
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ type: 'exception', exceptionType: 'ItemAlreadyDepositedException' });
  });

  it('an item seeded as BAR_CODE is not found when read as RFID; unknown items get 404 ItemNotFoundException', async () => {
    const wrongType = await sim.client.identify(SEED_BARCODES[0], 'RFID');
    expect(wrongType.status).toBe(404);
    const unknown = await sim.client.identify(SEED_UNKNOWN_BARCODE);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      type: 'exception',
      exceptionType: 'ItemNotFoundException',
      displayMessages: ['Item not found', 'please ask the staff'],
      message: `no deposit for BAR_CODE ${SEED_UNKNOWN_BARCODE}`,
    });
  });

  it('a second scan while a box is open is refused (409 ActionInProgressException)', async () => {
    await sim.client.identify(SEED_BARCODES[0]);
    const second = await sim.client.identify(SEED_BARCODES[1]);
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ exceptionType: 'ActionInProgressException' });
  });

  it('box-open answered but the door never reported OPEN: the action is dropped and the item stays pending', async () => {
    const { client, server } = sim;
    await client.identify(SEED_BARCODES[0]);
    expect((await client.state([])).json).toMatchObject({ type: 'wait-for-input' });
    const st = server.stationState(DEMO_STATION.id);
    expect(st.active).toBeNull();
    expect(st.pendingDeposits.map((d) => d.identifierValue)).toContain(SEED_BARCODES[0]);
    expect(st.history.at(-1)).toMatchObject({ kind: 'not-opened', action: 'deposit' });
    expect((await client.identify(SEED_BARCODES[0])).status).toBe(200);
  });
});

describe('cancel', () => {
  it('is allowed while the deposit box is open: wait-for-closing not cancellable, item not stored', async () => {
    const { client, server } = sim;
    await client.identify(SEED_BARCODES[1]);
    await client.state([2]);
    const cancelled = await client.cancel();
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({ type: 'wait-for-closing', boxes: [client.box(2)], displayMessages: ['Cancelled', 'close box 2'], cancellable: false });
    // Still open: the station is told again to close it, no longer cancellable.
    expect((await client.state([2])).json).toEqual({
      type: 'wait-for-closing',
      boxes: [client.box(2)],
      displayMessages: cancelledMessages(2),
      cancellable: false,
    });
    expect((await client.state([])).json).toMatchObject({ type: 'wait-for-input' });
    const st = server.stationState(DEMO_STATION.id);
    expect(st.boxes[1]?.contents).toEqual([]);
    expect(st.pendingDeposits.map((d) => d.identifierValue)).toContain(SEED_BARCODES[1]);
    expect(st.history.at(-1)).toMatchObject({ kind: 'deposit-cancelled', identifierValue: SEED_BARCODES[1] });
  });

  it('is refused with 400 CannotCancelException when idle, twice, after closing, and for a pickup', async () => {
    const { client } = sim;
    const expectRefused = async (): Promise<void> => {
      const r = await client.cancel();
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ type: 'exception', exceptionType: 'CannotCancelException', displayMessages: ['This cannot be cancelled'] });
    };
    await expectRefused(); // idle
    await client.identify(SEED_BARCODES[0]);
    expect((await client.cancel()).status).toBe(200);
    await expectRefused(); // already cancelled
    await client.state([1]);
    await client.state([]);
    await expectRefused(); // closed
    await client.pin(SEED_PIN_SINGLE);
    await client.state([4]);
    await expectRefused(); // pickup
  });
});

describe('pickup', () => {
  it('one PIN opens two boxes in one command; the PIN is used once both are closed', async () => {
    const { client, server } = sim;
    const open = await client.pin(SEED_PIN_MULTI);
    expect(open.json).toEqual({ type: 'box-open', boxes: [client.box(5), client.box(6)], displayMessages: ['Boxes 5, 6 open', 'take your items'] });
    // Box 6 springs open later than box 5: the server waits for what is open now.
    expect((await client.state([5])).json).toEqual({
      type: 'wait-for-closing',
      boxes: [client.box(5)],
      displayMessages: pickupClosingMessages([5]),
      cancellable: false,
    });
    expect((await client.state([5, 6])).json).toEqual({
      type: 'wait-for-closing',
      boxes: [client.box(5), client.box(6)],
      displayMessages: ['Take your items from boxes 5, 6', 'and close the door'],
      cancellable: false,
    });
    expect((await client.state([6])).json).toMatchObject({ type: 'wait-for-closing', boxes: [client.box(6)] });
    expect(server.stationState(DEMO_STATION.id).pendingPickups.map((p) => p.pin)).toContain(SEED_PIN_MULTI);
    expect((await client.state([])).json).toMatchObject({ type: 'wait-for-input' });
    const st = server.stationState(DEMO_STATION.id);
    expect(st.usedPickups.map((p) => p.pin)).toEqual([SEED_PIN_MULTI]);
    expect(st.history.at(-1)).toMatchObject({ kind: 'pickup-done', pin: SEED_PIN_MULTI, boxIds: [client.box(5), client.box(6)] });
    const reuse = await client.pin(SEED_PIN_MULTI);
    expect(reuse.status).toBe(404);
    expect(reuse.json).toMatchObject({ exceptionType: 'InvalidPinException' });
  });

  it('a single-box PIN; unknown PIN 404; a PIN that is not 6 digits is a 400', async () => {
    const { client } = sim;
    expect((await client.pin(SEED_UNKNOWN_PIN)).status).toBe(404);
    for (const bad of ['12345', '1234567', '12a456', '']) {
      const r = await client.pin(bad);
      expect(r.status, bad).toBe(400);
      expect(r.json).toMatchObject({ type: 'exception', exceptionType: 'BadRequestException' });
    }
    expect((await client.pin(SEED_PIN_SINGLE)).json).toMatchObject({
      type: 'box-open',
      boxes: [client.box(4)],
      displayMessages: ['Box 4 opens', 'take your items'],
    });
  });
});
