/**
 * Seed data: a demo station and the default set of items and PINs, as named constants so the
 * demo, tests and the fleet generator all refer to the same values.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SimConfigError } from './errors.js';
import type { SimDeposit, SimPickup, SimulatedStation } from './types.js';

/** Two library barcodes -> boxes 1 and 2. */
export const SEED_BARCODES = ['31234000000017', '31234000000025'] as const;
/** An RFID tag uid -> box 3. */
export const SEED_RFID = 'e004010012345678';
/** Opens box 4. */
export const SEED_PIN_SINGLE = '123456';
/** Opens boxes 5 and 6 in one command. */
export const SEED_PIN_MULTI = '654321';
/** Known to nobody: for the not-found paths. */
export const SEED_UNKNOWN_BARCODE = '31234999999999';
export const SEED_UNKNOWN_PIN = '000000';
/** defaultSeed needs this many boxes. */
export const SEED_MIN_BOXES = 6;

export const DEMO_STATION: SimulatedStation = {
  id: 'c0ffee00-5a1e-4b0c-8d1e-000000000001',
  password: 'DemoStationPassw0rd1',
  boxes: [1, 2, 3, 4, 5, 6].map((n) => `6b0c5e1a-0000-4000-8000-00000000000${n}`),
};

export interface SeedData {
  readonly stations: SimulatedStation[];
  readonly deposits: SimDeposit[];
  readonly pickups: SimPickup[];
}

/** 3 items to deposit (boxes 1..3), PIN 123456 -> box 4, PIN 654321 -> boxes 5 and 6. */
export function defaultSeed(station: SimulatedStation): { deposits: SimDeposit[]; pickups: SimPickup[] } {
  if (station.boxes.length < SEED_MIN_BOXES) {
    throw new SimConfigError([`station ${station.id}: defaultSeed needs ${SEED_MIN_BOXES} boxes, it has ${station.boxes.length}`]);
  }
  const box = (n: number): string => station.boxes[n - 1] ?? '';
  return {
    deposits: [
      { identifierValue: SEED_BARCODES[0], identifierType: 'BAR_CODE', stationId: station.id, boxId: box(1) },
      { identifierValue: SEED_BARCODES[1], identifierType: 'BAR_CODE', stationId: station.id, boxId: box(2) },
      { identifierValue: SEED_RFID, identifierType: 'RFID', stationId: station.id, boxId: box(3) },
    ],
    pickups: [
      { pin: SEED_PIN_SINGLE, stationId: station.id, boxIds: [box(4)] },
      { pin: SEED_PIN_MULTI, stationId: station.id, boxIds: [box(5), box(6)] },
    ],
  };
}

/** The default seed for every station (items and PINs are per station, so values repeat across a fleet). */
export function seedData(stations: readonly SimulatedStation[]): SeedData {
  const seeds = stations.map(defaultSeed);
  return { stations: [...stations], deposits: seeds.flatMap((s) => s.deposits), pickups: seeds.flatMap((s) => s.pickups) };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh station as the factory would make it: UUIDv4 ids, 20-character alphanumeric password. */
export function generateStation(boxCount = SEED_MIN_BOXES): SimulatedStation {
  // 62 * 4 = 248 <= 256: rejecting bytes >= 248 keeps every character equally likely.
  let password = '';
  while (password.length < 20) {
    for (const b of randomBytes(32)) if (b < 248 && password.length < 20) password += ALNUM[b % 62] ?? '';
  }
  return { id: randomUUID(), password, boxes: Array.from({ length: boxCount }, () => randomUUID()) };
}
