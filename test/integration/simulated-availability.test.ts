import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_STATION, SEED_BARCODES, SEED_PIN_SINGLE } from '../../src/reference-server/seed.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

let sim: SimFixture;
afterEach(() => sim.server.stop());

describe('station availability (absence of /state)', () => {
  it('refuses box actions before the first /state and after absenceMs without one', async () => {
    sim = await startSim({ absenceMs: 1000 });
    const { client, server, advance } = sim;
    expect(server.isAvailable(DEMO_STATION.id)).toBe(false);
    const never = await client.identify(SEED_BARCODES[0]);
    expect(never.status).toBe(409);
    expect(never.json).toMatchObject({
      type: 'exception',
      exceptionType: 'StationUnavailableException',
      displayMessages: ['Station unavailable', 'please try later'],
    });

    await client.state();
    advance(999);
    expect(server.isAvailable(DEMO_STATION.id)).toBe(true);
    advance(1);
    expect(server.isAvailable(DEMO_STATION.id)).toBe(false);
    const absent = await client.pin(SEED_PIN_SINGLE);
    expect(absent.status).toBe(409);
    expect(absent.json).toMatchObject({ exceptionType: 'StationUnavailableException', message: expect.stringContaining('no /state for 1000 ms') });
    expect(server.stationState(DEMO_STATION.id).active).toBeNull();

    await client.state();
    expect((await client.pin(SEED_PIN_SINGLE)).status).toBe(200);
  });

  it("defaults to the spec's 2 minutes", async () => {
    sim = await startSim();
    await sim.client.state();
    sim.advance(119_999);
    expect(sim.server.isAvailable(DEMO_STATION.id)).toBe(true);
    sim.advance(1);
    expect(sim.server.isAvailable(DEMO_STATION.id)).toBe(false);
  });

  it('a DOWN /state is accepted, counts as a heartbeat and keeps the error message', async () => {
    sim = await startSim();
    const r = await sim.client.state([], { st: 'DOWN', errorMessage: 'lock 3 jammed' });
    expect(r.json).toMatchObject({ type: 'wait-for-input' });
    const st = sim.server.stationState(DEMO_STATION.id);
    expect(st.health).toEqual({ st: 'DOWN', errorMessage: 'lock 3 jammed', inputVoltage: 12.1, internetSignalStrength: 100 });
    expect(st.lastHeartbeatAt).toBe(10_000);
    expect(st.history.at(-1)).toEqual({ at: 10_000, kind: 'station-down', errorMessage: 'lock 3 jammed' });
  });

  it('a box OPEN that no action opened is answered wait-for-input and recorded as forced, once', async () => {
    sim = await startSim();
    expect((await sim.client.state([2])).json).toMatchObject({ type: 'wait-for-input' });
    await sim.client.state([2]);
    const st = sim.server.stationState(DEMO_STATION.id);
    expect(st.history.filter((h) => h.kind === 'forced-open')).toEqual([{ at: 10_000, kind: 'forced-open', boxId: DEMO_STATION.boxes[1] }]);
    expect(st.boxes[1]?.reported).toBe('OPEN');
    expect(sim.server.requests[0]?.notes[0]).toMatch(/box 2 OPEN without an action/);
  });
});

describe('disable / enable', () => {
  it('answers /state with station-disable and its messages, refuses box actions, and recovers on enable', async () => {
    sim = await startSim();
    const { client, server } = sim;
    await client.state();
    server.disableStation(DEMO_STATION.id, ['Closed for inventory', 'back on Monday']);
    expect((await client.state()).json).toEqual({ type: 'station-disable', displayMessages: ['Closed for inventory', 'back on Monday'] });
    const refused = await client.identify(SEED_BARCODES[0]);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ exceptionType: 'StationDisabledException', displayMessages: ['Closed for inventory', 'back on Monday'] });
    server.enableStation(DEMO_STATION.id);
    expect((await client.state()).json).toMatchObject({ type: 'wait-for-input' });
    expect((await client.identify(SEED_BARCODES[0])).status).toBe(200);
  });

  it('a box closed while disabled still completes the action', async () => {
    sim = await startSim();
    const { client, server } = sim;
    await client.state();
    await client.identify(SEED_BARCODES[0]);
    await client.state([1]);
    server.disableStation(DEMO_STATION.id, ['Out of service']);
    expect((await client.state([])).json).toMatchObject({ type: 'station-disable' });
    expect(server.stationState(DEMO_STATION.id).storedDeposits).toHaveLength(1);
  });

  it('throws UnknownStationError for a station it does not serve', async () => {
    sim = await startSim();
    expect(() => sim.server.disableStation('nope', ['x'])).toThrow(/unknown station nope/);
  });
});
