/**
 * N virtual stations in one process: each a real station (startStation: runtime, protocol client,
 * its own id and password) on simulated hardware, with a scripted person (script.ts). They start
 * spread over `rampMs` so their heartbeats are spread too, as in a real fleet.
 *
 * Every station's protocol client uses the caller's shared HTTP agents (agent.ts).
 */
import type { Logger } from 'pino';
import { StartAborted, startStation, type RunningStation } from '../app.js';
import type { HttpAgents } from '../protocol/client.js';
import { validateConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { simulatedHardwareFor, type SimulatedHardware } from '../devices/simulated/hardware.js';
import type { SimulatedStation } from '../reference-server/index.js';
import { HeartbeatTracker } from './heartbeat.js';
import { ACTION_KINDS, StationScript, emptyStats, type ScriptStats } from './script.js';
import type { Supply } from './supply.js';
import { sleep } from '../time.js';

export interface FleetOptions {
  readonly stations: readonly SimulatedStation[];
  /** server.baseUrl of every station: up to (not including) the version segment. */
  readonly baseUrl: string;
  readonly version: string;
  readonly supply: Supply;
  readonly heartbeatMs: number;
  /** Scripted actions per station per minute (0: heartbeats only). */
  readonly ratePerMin: number;
  readonly holdMs: number;
  readonly rampMs: number;
  /** Root logger; each station logs through a child bound to its id. */
  readonly log: Logger;
  /** The shared keep-alive agents every station's client uses. */
  readonly agent: HttpAgents;
  readonly answerTimeoutMs?: number;
  /** Called with each station once it runs (fleet metrics observe it from there). */
  readonly onStation?: (member: FleetMember) => void;
}

export interface FleetMember {
  readonly def: SimulatedStation;
  readonly station: RunningStation;
  readonly sim: SimulatedHardware;
  readonly script: StationScript;
}

export interface FleetStats {
  readonly stations: number;
  readonly actions: ScriptStats;
  /** Protocol events that stayed unanswered after every attempt. */
  readonly unanswered: number;
  /** Stations in deactivated mode right now. */
  readonly deactivated: number;
}

export function fleetStationConfig(def: SimulatedStation, o: Pick<FleetOptions, 'baseUrl' | 'version' | 'heartbeatMs' | 'answerTimeoutMs'>): Config {
  const { config, problems } = validateConfig({
    station: { id: def.id, boxes: def.boxes.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl: o.baseUrl, version: o.version, ...(o.answerTimeoutMs === undefined ? {} : { answerTimeoutMs: o.answerTimeoutMs }) },
    timing: { heartbeatIntervalMs: o.heartbeatMs },
    // Virtual stations keep nothing across restarts (and write nothing to /var/lib).
    storage: { directory: null },
  });
  if (!config) throw new Error(`fleet station ${def.id}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  return config;
}

export class Fleet {
  readonly members: FleetMember[] = [];
  /** /state spacing as the stations send them. */
  readonly heartbeats: HeartbeatTracker;
  private unanswered = 0;
  /** Aborted by stop(): the ramp starts no further station. */
  private readonly stopping = new AbortController();
  private ramp: Promise<void> = Promise.resolve();

  private constructor(private readonly o: FleetOptions) {
    this.heartbeats = new HeartbeatTracker(o.heartbeatMs);
  }

  /** Starts the ramp; resolves once every station has started (or the fleet was stopped). */
  static start(o: FleetOptions): { fleet: Fleet; started: Promise<void> } {
    const fleet = new Fleet(o);
    fleet.ramp = fleet.rampUp();
    return { fleet, started: fleet.ramp };
  }

  private async rampUp(): Promise<void> {
    const { stations, rampMs } = this.o;
    const t0 = performance.now();
    for (let i = 0; i < stations.length && !this.stopping.signal.aborted; i++) {
      const due = t0 + (i * rampMs) / stations.length;
      const wait = due - performance.now();
      // eslint-disable-next-line no-restricted-syntax -- pacing, not polling: the next station's start is due at a time, not on a condition
      if (wait > 0) await sleep(wait, this.stopping.signal);
      if (this.stopping.signal.aborted) break;
      try {
        this.members.push(await this.startOne(stations[i] as SimulatedStation));
      } catch (e) {
        // Stopped while this station started: it stopped itself at its next step.
        if (e instanceof StartAborted) break;
        throw e;
      }
    }
  }

  private async startOne(def: SimulatedStation): Promise<FleetMember> {
    const config = fleetStationConfig(def, this.o);
    const sim = simulatedHardwareFor(config);
    const station = await startStation({
      config,
      password: def.password,
      log: this.o.log.child({ station: def.id }),
      hardware: sim,
      agent: this.o.agent,
      signal: this.stopping.signal,
    });
    station.runtime.onEvent((e) => {
      if (e.type === 'event-sent' && e.endpoint === 'state') this.heartbeats.record(def.id, performance.now());
      if (e.type === 'event-done' && e.record.outcome.startsWith('unanswered')) this.unanswered++;
    });
    const script = new StationScript(station, sim, def, this.o.supply, {
      ratePerMin: this.o.ratePerMin,
      holdMs: this.o.holdMs,
      // Longer than the station's own worst case: every attempt unanswered, then a door timeout.
      waitMs: config.server.answerTimeoutMs * config.server.attempts + config.timing.doorOpenTimeoutMs + 5_000,
    });
    script.start();
    const member = { def, station, sim, script };
    this.o.onStation?.(member);
    return member;
  }

  stats(): FleetStats {
    const actions = emptyStats();
    let deactivated = 0;
    for (const m of this.members) {
      for (const k of ACTION_KINDS) {
        const from = m.script.stats[k];
        const to = actions[k];
        to.started += from.started;
        to.done += from.done;
        to.refused += from.refused;
        to.failed += from.failed;
      }
      if (m.station.runtime.snapshot().mode.kind === 'deactivated') deactivated++;
    }
    return { stations: this.members.length, actions, unanswered: this.unanswered, deactivated };
  }

  /** Scripts first (no new actions), then every station (locks OFF, hardware closed). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.ramp;
    await Promise.all(this.members.map((m) => m.script.stop()));
    await Promise.all(this.members.map((m) => m.station.stop()));
  }
}
