/**
 * A station as the field runs it, against a FaultyServer: HTTPS with the library's private CA
 * (`server.caFile`), the real HTTP client and runtime on simulated hardware, the technician port
 * on 127.0.0.1 with its live streams read the way the page reads them, every log line kept, and a
 * storage directory of its own. Everything a secrets check must look at is collected here.
 */
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startStation } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput, Config } from '../../src/config/schema.js';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { startSupervised, type Supervised } from '../../src/supervised.js';
import type { StatusBody } from '../../src/technician/status.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { createLogger, LogRing, type Logger } from '../../src/log.js';
import { defaultSeed } from '../../src/reference-server/seed.js';
import type { SimulatedStation } from '../../src/reference-server/types.js';
import { FaultyServer, type FaultCerts } from './fault-catalogue.js';
import { filesUnder, findLeaksIn, type KnownSecrets, type Leak } from './secrets.js';

export interface FaultStationOptions {
  readonly station: SimulatedStation;
  readonly certs: FaultCerts;
  readonly server?: Partial<ConfigInput['server']>;
  readonly timing?: ConfigInput['timing'];
  readonly locks?: ConfigInput['locks'];
  readonly logLevel?: 'debug' | 'info';
  /** Hand a log line to this too (a soak counts without keeping every line). */
  readonly onLogLine?: (line: string) => void;
  /** Keep every log line and stream event in memory (default true; a long soak says false). */
  readonly keepText?: boolean;
}

export interface FaultStation {
  readonly faulty: FaultyServer;
  readonly wp: Supervised;
  readonly sim: SimulatedHardware;
  readonly config: Config;
  readonly storageDir: string;
  readonly token: string;
  readonly log: Logger;
  /** Every log line (JSON text) when keepText. */
  readonly logs: string[];
  /** Raw text of the live streams (/api/events/stream, /api/logs/stream) when keepText. */
  readonly streams: { events: string; logs: string };
  /** Every status body fetched through status(), as text. */
  readonly statuses: string[];
  status(): Promise<StatusBody>;
  /** Everything collected plus every file under storage.directory, checked for secrets. */
  leaks(known: Omit<KnownSecrets, 'stationId' | 'password' | 'tokens'>): Leak[];
  stop(): Promise<void>;
}

export async function startFaultStation(o: FaultStationOptions): Promise<FaultStation> {
  const faulty = new FaultyServer(o.certs, { stations: [o.station], ...defaultSeed(o.station) });
  const baseUrl = await faulty.start();
  const storageDir = mkdtempSync(join(tmpdir(), 'station-state-'));
  const token = newToken();
  const { config, problems } = validateConfig({
    station: { id: o.station.id, boxes: o.station.boxes.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl, caFile: o.certs.ca.certFile, ...o.server },
    timing: o.timing,
    locks: { pulseMs: 50, ...o.locks },
    hardware: { kind: 'simulated', doorSpringMs: 20 },
    log: { level: o.logLevel ?? 'debug' },
    storage: { directory: storageDir },
    technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'matrix', scope: 'service', hash: hashToken(token) }], keepAliveMs: 60_000 },
  });
  if (!config) throw new Error(`fault station config invalid: ${JSON.stringify(problems)}`);
  const keep = o.keepText ?? true;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const text = chunk.toString();
      if (keep) logs.push(text);
      o.onLogLine?.(text);
      cb();
    },
  });
  const ring = new LogRing(200);
  const log = createLogger(config.log.level, sink, { ring });
  const sim = new SimulatedHardware({ boxNumbers: o.station.boxes.map((_, i) => i + 1), doorSpringMs: 20, inputVoltage: 12.4, internetSignalStrength: 87 });
  // The station's own HTTPS agent (keep-alive, like Node's global one) with the switchable lookup.
  const agent = { https: new Agent({ keepAlive: true, lookup: faulty.lookup.lookup }) };
  const station = await startStation({ config, password: o.station.password, log, hardware: sim, agent });
  const wp = await startSupervised({
    station,
    loaded: { config, password: o.station.password, warnings: [] },
    configFile: null,
    env: {},
    log,
    ring,
    start: (l, signal) => startStation({ config: l.config, password: l.password, log, agent, signal }),
    onFatal: (e) => {
      throw e;
    },
  });
  const url = wp.port?.url;
  if (!url) throw new Error('technician port did not start');

  const streams = { events: '', logs: '' };
  const aborts: AbortController[] = [];
  const follow = async (path: string, into: 'events' | 'logs'): Promise<void> => {
    const ctl = new AbortController();
    aborts.push(ctl);
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` }, signal: ctl.signal });
    if (res.status !== 200 || !res.body) throw new Error(`stream ${path}: HTTP ${res.status}`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (keep) streams[into] += decoder.decode(value, { stream: true });
        }
      } catch {
        // aborted at stop
      }
    })();
  };
  await follow('/api/events/stream', 'events');
  await follow('/api/logs/stream', 'logs');

  const statuses: string[] = [];
  return {
    faulty,
    wp,
    sim,
    config,
    storageDir,
    token,
    log,
    logs,
    streams,
    statuses,
    async status() {
      const res = await fetch(`${url}/api/status?events=100`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`status: HTTP ${res.status} ${text}`);
      statuses.push(text);
      return JSON.parse(text) as StatusBody;
    },
    leaks(known) {
      const sources: Record<string, string> = {
        log: logs.join(''),
        'live stream /api/events/stream': streams.events,
        'live stream /api/logs/stream': streams.logs,
        'technician status': statuses.join('\n'),
      };
      for (const [path, text] of filesUnder(storageDir)) sources[path] = text;
      return findLeaksIn(sources, { ...known, stationId: o.station.id, password: o.station.password, tokens: [token] });
    },
    async stop() {
      for (const a of aborts) a.abort();
      await wp.stop();
      agent.https.destroy();
      await faulty.stop();
    },
  };
}
