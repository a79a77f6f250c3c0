/**
 * Checks of the server's data (stations, items, PINs) and the JSON shape of a stations file.
 * Every problem is reported at once, with where it is.
 */
import * as z from '../schema.js';
import { PIN_LENGTH } from '../protocol/types.js';
import { SimConfigError } from './errors.js';
import type { SeedData } from './seed.js';
import type { SimDeposit, SimPickup, SimulatedStation } from './types.js';
import { UUID_V4_LOWER } from './validate.js';

const PIN_RE = new RegExp(`^[0-9]{${PIN_LENGTH}}$`);

/** Problems of a data set; empty when the server can serve it. */
export function checkSimData(stations: readonly SimulatedStation[], deposits: readonly SimDeposit[], pickups: readonly SimPickup[]): string[] {
  const problems: string[] = [];
  const byId = new Map<string, SimulatedStation>();
  stations.forEach((s, i) => {
    const at = `stations.${i}`;
    if (!UUID_V4_LOWER.test(s.id)) problems.push(`${at}.id: must be a lowercase UUIDv4 (got ${JSON.stringify(s.id)})`);
    if (byId.has(s.id)) problems.push(`${at}.id: duplicate station ${s.id}`);
    if (s.password.length === 0 || s.password.includes(':')) problems.push(`${at}.password: must be non-empty without ':'`);
    if (s.boxes.length === 0) problems.push(`${at}.boxes: a station has at least one box`);
    s.boxes.forEach((b, j) => {
      if (!UUID_V4_LOWER.test(b)) problems.push(`${at}.boxes.${j}: must be a lowercase UUIDv4 (got ${JSON.stringify(b)})`);
      if (s.boxes.indexOf(b) !== j) problems.push(`${at}.boxes.${j}: duplicate box ${b}`);
    });
    byId.set(s.id, s);
  });
  const seenItems = new Set<string>();
  deposits.forEach((d, i) => {
    const at = `deposits.${i}`;
    const station = byId.get(d.stationId);
    if (station === undefined) problems.push(`${at}.stationId: unknown station ${d.stationId}`);
    else if (!station.boxes.includes(d.boxId)) problems.push(`${at}.boxId: ${d.boxId} is not a box of station ${d.stationId}`);
    if (d.identifierValue.length === 0) problems.push(`${at}.identifierValue: must not be empty`);
    // Two pending deposits of one value would make "which box opens" depend on list order.
    const key = `${d.stationId}\n${d.identifierValue}`;
    if (seenItems.has(key)) problems.push(`${at}.identifierValue: ${d.identifierValue} is already to be deposited at this station`);
    seenItems.add(key);
  });
  const seenPins = new Set<string>();
  pickups.forEach((p, i) => {
    const at = `pickups.${i}`;
    const station = byId.get(p.stationId);
    if (!PIN_RE.test(p.pin)) problems.push(`${at}.pin: must be ${PIN_LENGTH} digits`);
    if (station === undefined) problems.push(`${at}.stationId: unknown station ${p.stationId}`);
    if (p.boxIds.length === 0) problems.push(`${at}.boxIds: at least one box`);
    p.boxIds.forEach((b, j) => {
      if (station !== undefined && !station.boxes.includes(b)) problems.push(`${at}.boxIds.${j}: ${b} is not a box of station ${p.stationId}`);
      if (p.boxIds.indexOf(b) !== j) problems.push(`${at}.boxIds.${j}: duplicate box ${b}`);
    });
    const key = `${p.stationId}\n${p.pin}`;
    if (seenPins.has(key)) problems.push(`${at}.pin: duplicate PIN at this station`);
    seenPins.add(key);
  });
  return problems;
}

export const simStationSchema = z.object({ id: z.string(), password: z.string(), boxes: z.array(z.string()) });
export const simDepositSchema = z.object({
  identifierValue: z.string(),
  identifierType: z.optional(z.enum(['BAR_CODE', 'RFID'])),
  stationId: z.string(),
  boxId: z.string(),
});
export const simPickupSchema = z.object({ pin: z.string(), stationId: z.string(), boxIds: z.array(z.string()) });

const simDataSchema = z.strictObject({
  stations: z.array(simStationSchema).check(z.minLength(1)),
  deposits: z._default(z.array(simDepositSchema), []),
  pickups: z._default(z.array(simPickupSchema), []),
});

/** A parsed stations file `{stations, deposits?, pickups?}`, checked; throws SimConfigError. */
export function parseSimData(raw: unknown): SeedData {
  const parsed = simDataSchema.safeParse(raw);
  if (!parsed.success) throw new SimConfigError(parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`));
  const { stations, deposits, pickups } = parsed.data;
  const problems = checkSimData(stations, deposits, pickups);
  if (problems.length > 0) throw new SimConfigError(problems);
  return { stations, deposits, pickups };
}
