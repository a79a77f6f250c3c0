/**
 * Where a scripted person's items and PINs come from. A deposit is stored and a PIN used once, so
 * a long run needs fresh ones: the reference server takes them directly (in-process) or through
 * its loopback control API; any other server only has what the shared stations file seeded, and
 * after those are used its answers are exceptions (counted as refused, still load).
 */
import type { Agent } from 'node:http';
import { request } from 'node:http';
import type { ReferenceServer, SeedData, SimDeposit, SimPickup, SimulatedStation } from '../reference-server/index.js';
import { CONTROL_PREFIX } from '../reference-server/index.js';

export interface Supply {
  readonly kind: string;
  /** An item value waiting to be deposited at `station`, or null when there is none to offer. */
  deposit(station: SimulatedStation): Promise<string | null>;
  /** A PIN that opens boxes of `station`, or null. */
  pickup(station: SimulatedStation): Promise<string | null>;
}

/** Fresh values per station: barcodes `9` + station index + counter, PINs counting up (6 digits). */
class FreshValues {
  private readonly counters = new Map<string, number>();
  constructor(private readonly index: ReadonlyMap<string, number>) {}
  next(station: SimulatedStation): number {
    const n = (this.counters.get(station.id) ?? 0) + 1;
    this.counters.set(station.id, n);
    return n;
  }
  deposit(station: SimulatedStation): SimDeposit {
    const n = this.next(station);
    const boxId = station.boxes[n % station.boxes.length] ?? station.boxes[0] ?? '';
    return {
      identifierValue: `9${String(this.index.get(station.id) ?? 0).padStart(5, '0')}${String(n).padStart(8, '0')}`,
      identifierType: 'BAR_CODE',
      stationId: station.id,
      boxId,
    };
  }
  pickup(station: SimulatedStation): SimPickup {
    const n = this.next(station);
    // One box, every fourth pickup two: both shapes of box-open occur.
    const first = station.boxes[n % station.boxes.length] ?? '';
    const second = station.boxes[(n + 1) % station.boxes.length] ?? '';
    const boxIds = n % 4 === 0 && second !== first ? [first, second] : [first];
    return { pin: String(100_000 + (n % 900_000)), stationId: station.id, boxIds };
  }
}

const indexOf = (stations: readonly SimulatedStation[]): Map<string, number> => new Map(stations.map((s, i) => [s.id, i]));

/** The reference server in this process. */
export function serverSupply(server: ReferenceServer, stations: readonly SimulatedStation[]): Supply {
  const fresh = new FreshValues(indexOf(stations));
  return {
    kind: 'reference server (in-process)',
    deposit: (s) => {
      const d = fresh.deposit(s);
      server.addDeposit(d);
      return Promise.resolve(d.identifierValue);
    },
    pickup: (s) => {
      const p = fresh.pickup(s);
      server.addPickup(p);
      return Promise.resolve(p.pin);
    },
  };
}

/** A reference server in another process, through its loopback-only control API. */
export function controlApiSupply(origin: string, stations: readonly SimulatedStation[], agent: Agent): Supply {
  const fresh = new FreshValues(indexOf(stations));
  return {
    kind: `reference server control API ${origin}${CONTROL_PREFIX}/`,
    deposit: async (s) => {
      const d = fresh.deposit(s);
      await postJson(`${origin}${CONTROL_PREFIX}/deposits`, d, agent);
      return d.identifierValue;
    },
    pickup: async (s) => {
      const p = fresh.pickup(s);
      await postJson(`${origin}${CONTROL_PREFIX}/pickups`, p, agent);
      return p.pin;
    },
  };
}

/** Only what the stations file seeded, round robin per station. */
export function seededSupply(data: SeedData): Supply {
  const turn = new Map<string, number>();
  const pick = <T>(list: readonly T[], key: string): T | null => {
    if (list.length === 0) return null;
    const n = turn.get(key) ?? 0;
    turn.set(key, n + 1);
    return list[n % list.length] ?? null;
  };
  return {
    kind: 'seeded items and PINs of the stations file',
    deposit: (s) =>
      Promise.resolve(
        pick(
          data.deposits.filter((d) => d.stationId === s.id),
          `d:${s.id}`,
        )?.identifierValue ?? null,
      ),
    pickup: (s) =>
      Promise.resolve(
        pick(
          data.pickups.filter((p) => p.stationId === s.id),
          `p:${s.id}`,
        )?.pin ?? null,
      ),
  };
}

/** POST a JSON body; resolves on 2xx, rejects otherwise (with the server's error text). */
export function postJson(url: string, body: unknown, agent: Agent, timeoutMs = 10_000): Promise<void> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent,
      timeout: timeoutMs,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
    });
    req.on('response', (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (answer += c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`POST ${url}: HTTP ${status} ${answer.slice(0, 200)}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`POST ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(text);
  });
}
