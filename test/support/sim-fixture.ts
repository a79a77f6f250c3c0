/** Starts a seeded reference server on 127.0.0.1 with a hand-driven monotonic clock. */
import { ReferenceServer } from '../../src/reference-server/server.js';
import { DEMO_STATION, seedData } from '../../src/reference-server/seed.js';
import type { ReferenceServerOptions, SimulatedStation } from '../../src/reference-server/types.js';
import { SimStationClient } from './sim-client.js';

export interface SimFixture {
  readonly server: ReferenceServer;
  readonly url: string;
  readonly client: SimStationClient;
  /** Moves the server's now() forward. */
  advance(ms: number): void;
}

export async function startSim(options: Partial<ReferenceServerOptions> = {}, station: SimulatedStation = DEMO_STATION): Promise<SimFixture> {
  let clock = 10_000;
  const server = new ReferenceServer({ ...seedData([station]), now: () => clock, ...options });
  const url = await server.start();
  return {
    server,
    url,
    client: new SimStationClient(url, station),
    advance: (ms) => {
      clock += ms;
    },
  };
}
