/**
 * The station under test for the cost of metrics: assembled as the daemon does it (startStation,
 * then startSupervised, which brings the metrics), with `metrics.enabled` on or off, the
 * technician port on 127.0.0.1 with a metrics-scope token (its hash is passed in). Logging at info
 * to stdout, as the daemon logs.
 *
 *   node --expose-gc metrics-station.js '{"serverUrl", "station": SimulatedStation, "metrics": bool, "tokenHash", "tty"?: PATH}'
 *
 * With `tty`, the barcode scanner is the real serial driver on that pty (the scan path); without,
 * the hardware is all simulated and {run: N} drives N more protocol events (an unknown item, then a
 * wrong PIN, in turn), forces GC and answers {events, memory}. Sends {ready, url} once the first
 * /state is answered.
 */
import { startStation } from '../../src/app.js';
import { startSupervised } from '../../src/supervised.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';
import { createLogger, LogRing } from '../../src/log.js';
import type { SimulatedStation } from '../../src/reference-server/index.js';
import { withSerialScanner } from '../lib/serial-hardware.js';
import { stationConfig } from '../lib/station.js';

interface Args {
  readonly serverUrl: string;
  readonly station: SimulatedStation;
  readonly metrics: boolean;
  readonly tokenHash: string;
  readonly tty?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const config = stationConfig(args.station, args.serverUrl, {
  // No heartbeat in the way of a scan (it would be refused as busy); the unknown items repeat.
  timing: { heartbeatIntervalMs: 119_000, duplicateScanWindowMs: 0 },
  storage: { directory: null },
  technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'prometheus', scope: 'metrics', hash: args.tokenHash }] },
  metrics: { enabled: args.metrics },
});
const ring = new LogRing(config.technician.logLines);
const log = createLogger(config.log.level, undefined, { ring });
const sim = new SimulatedHardware({ boxNumbers: config.station.boxes.map((b) => b.number), doorSpringMs: 50, inputVoltage: 12.1, internetSignalStrength: 100 });
let hardware: StationHardware = sim;
if (args.tty !== undefined) hardware = await withSerialScanner(sim, args.tty, log);
const first = await startStation({ config, password: args.station.password, log, hardware });
const supervised = await startSupervised({
  station: first,
  loaded: { config, password: args.station.password, warnings: [] },
  configFile: null,
  env: {},
  log,
  ring,
  start: () => Promise.reject(new Error('no reload in the bench')),
});
const { port } = supervised;
const station = supervised.supervisor.station;
let events = station.runtime.events().length;
const ready = (): void => {
  process.send?.({ ready: true, url: port?.url ?? null });
};
station.runtime.onEvent((e) => {
  if (e.type === 'event-done' && events++ === 0) ready();
});
// The first /state may have been answered before the line above subscribed.
if (events > 0) ready();

/** Until nothing is in flight or owed and the station is idle again (checked after each runtime event). */
function idle(): Promise<void> {
  const ok = (): boolean => {
    const s = station.runtime.snapshot();
    return s.inFlight === null && !s.stateOwed && s.mode.kind === 'idle';
  };
  if (ok()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (ok()) {
        done();
        resolve();
      }
    };
    const off = station.runtime.onEvent(() => setImmediate(check));
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`metrics-station: not idle (mode ${station.runtime.snapshot().mode.kind})`));
    }, 10_000);
    function done(): void {
      off();
      clearInterval(poll);
      clearTimeout(timer);
    }
  });
}

let unknown = 0;
process.on('message', (m: { run?: number }) => {
  if (typeof m.run !== 'number') return;
  const until = events + m.run;
  void (async () => {
    while (events < until) {
      sim.scanBarcode(`6${String(unknown++).padStart(13, '0')}`);
      await idle();
      sim.typePin('000000');
      await idle();
    }
    // The lowest of five readings, each after GC and a pause (V8 returns freed pages from a
    // background thread): a reading taken while a scrape's garbage is still live says nothing.
    let best: NodeJS.MemoryUsage | null = null;
    for (let i = 0; i < 5; i++) {
      globalThis.gc?.();
      await new Promise((r) => setTimeout(r, 200));
      const m = process.memoryUsage();
      if (best === null || m.rss < best.rss) best = m;
    }
    process.send?.({ events, memory: best });
  })();
});
process.on('disconnect', () => {
  void supervised.stop().finally(() => process.exit(0));
});
