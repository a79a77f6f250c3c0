/**
 * The built daemon (dist/src/main.js) as a real process, the one harness for every test that runs it:
 *
 * - `spawnDaemon`: start it (node flags, argv, environment), collect stdout/stderr, parse its pino
 *   lines, wait for a line, read its memory from /proc (the station's own figure, not the runner's).
 * - `DaemonRig`: a daemon on simulated hardware whose doors survive a restart (`hardware.stateFile`
 *   in the test's temp dir), with its journal in the temp dir, its technician port on a unix socket
 *   (a service token), against an in-process reference server that outlives the daemon's restarts
 *   the way a library server does. The test stands in for the person at the station: it injects scans
 *   and PINs through the technician port and opens and closes doors by writing the hardware's file.
 * - `startDaemon`: a daemon started the way the unit starts it (the unit's V8 flags), against a given
 *   server, its technician port on a free 127.0.0.1 port with a read token; optionally through
 *   daemon-gc.mjs, which lets the test force a GC in the daemon before it reads the memory.
 *
 * Probing: DAEMON_NODE_FLAGS="--trace-gc" adds node flags to startDaemon's daemons and passes their
 * non-JSON output to stderr (e.g. to see when V8's memory reducer returns a flood's garbage).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeCommand, readUnit } from '../../bench/lib/unit.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import type { DoorState } from '../../src/devices/types.js';
import { ReferenceServer, defaultSeed, type RequestRecord, type SimDeposit } from '../../src/reference-server/index.js';
import { sleep, STATION, waitFor } from './shared.js';

export const MAIN = join(import.meta.dirname, '../../dist/src/main.js');
const GC_WRAPPER = join(import.meta.dirname, 'daemon-gc.mjs');

/** As in systemd/pickup-station.service's ExecStart= (read from it, so the two cannot drift). */
export const UNIT_NODE_FLAGS: readonly string[] = (() => {
  const unit = readUnit();
  return placeCommand(unit.execStart, unit, { node: 'node', release: '', configFile: '', cacheDir: '' }).nodeFlags;
})();

export type LogLine = { msg: string; level: number; [k: string]: unknown };

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** performance.now() of this test process just before spawn (the server's clock is the same). */
  readonly spawnedAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every complete stdout line so far that is JSON (pino), parsed. */
  lines(): LogLine[];
  /** Every complete, non-empty stdout line so far, as written. */
  rawLines(): string[];
  out(): string;
  err(): string;
  /** Resolves with the first log line that satisfies `pred`, as soon as it is written. */
  waitForLine(pred: (l: Record<string, unknown>) => boolean, what: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** VmRSS and VmHWM (peak) of the daemon, MiB. */
  memory(): { rss: number; hwm: number };
}

const parsed = (l: string): LogLine | null => {
  if (!l.startsWith('{')) return null;
  try {
    return JSON.parse(l) as LogLine;
  } catch {
    return null;
  }
};

/** Start a daemon process: `node` with `argv`, only `env` in its environment (plus PATH). */
export function spawnDaemon(node: string, argv: readonly string[], env: NodeJS.ProcessEnv, opts: { ipc?: boolean; echoNonJson?: boolean } = {}): DaemonProcess {
  const spawnedAt = performance.now();
  const child = spawn(node, argv, {
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(opts.ipc === true ? (['ipc'] as const) : [])],
  });
  let out = '';
  let err = '';
  const complete: string[] = [];
  let partial = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (b: Buffer) => {
    const text = b.toString();
    out += text;
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    complete.push(...parts.filter((l) => l !== ''));
    if (opts.echoNonJson === true) for (const l of parts) if (!l.startsWith('{')) console.error(l);
    for (const w of waiters) w();
  });
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = (): LogLine[] => complete.map(parsed).filter((l): l is LogLine => l !== null);
  const waitForLine: DaemonProcess['waitForLine'] = (pred, what, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = lines().find(pred);
        if (hit === undefined) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`daemon: timed out waiting for ${what}; stderr: ${err.slice(0, 2000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    child,
    spawnedAt,
    exited,
    lines,
    rawLines: () => [...complete],
    out: () => out,
    err: () => err,
    waitForLine,
    memory() {
      const status = readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8');
      const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
    },
  };
}

export interface SimFile {
  readonly doors: Record<string, DoorState>;
  readonly locks: Record<string, boolean>;
}

export class DaemonRig {
  readonly dir: string;
  readonly configFile: string;
  readonly simFile: string;
  readonly stateDir: string;
  readonly socket: string;
  readonly token = newToken();
  readonly runtimeDir: string;
  configInput: ConfigInput = { station: { id: STATION.id, boxes: [] }, server: { baseUrl: 'http://127.0.0.1:1' } };
  private readonly processes = new Set<ChildProcess>();

  private constructor(
    readonly server: ReferenceServer,
    readonly url: string,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'daemon-rig-'));
    this.configFile = join(this.dir, 'config.json');
    this.simFile = join(this.dir, 'sim', 'hardware.json');
    this.stateDir = join(this.dir, 'state');
    this.runtimeDir = join(this.dir, 'run');
    this.socket = join(this.dir, 'technician.sock');
    mkdirSync(join(this.dir, 'sim'));
    mkdirSync(this.runtimeDir);
    writeFileSync(join(this.dir, 'station-password'), STATION.password);
  }

  /** A fresh reference server (seeded, plus `deposits`) and a config for the daemon; `extra` overrides sections. */
  static async create(extra: Partial<ConfigInput> = {}, deposits: readonly SimDeposit[] = []): Promise<DaemonRig> {
    const seed = defaultSeed(STATION);
    const server = new ReferenceServer({ stations: [STATION], ...seed, deposits: [...seed.deposits, ...deposits] });
    const url = await server.start();
    const rig = new DaemonRig(server, url);
    rig.configInput = {
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin },
      storage: { directory: rig.stateDir },
      log: { level: 'debug' },
      ...extra,
      hardware: { kind: 'simulated', stateFile: rig.simFile, ...(extra.hardware as object | undefined) },
      technician: { listen: { socket: rig.socket }, tokens: [{ name: 'rig', scope: 'service', hash: hashToken(rig.token) }], ...extra.technician },
    };
    rig.writeConfig();
    return rig;
  }

  writeConfig(config: unknown = this.configInput): void {
    writeFileSync(this.configFile, JSON.stringify(config, null, 2));
  }

  /**
   * Start the daemon (`env` on top of the credentials and runtime directories). `launch`: another
   * node and argv for it (test/e2e/bundle-app.test.ts starts the bundled app/ as the unit does).
   */
  start(
    env: NodeJS.ProcessEnv = {},
    launch: { node: string; argv: readonly string[] } = { node: process.execPath, argv: [MAIN, 'run', '--config', this.configFile] },
  ): DaemonProcess {
    const p = spawnDaemon(launch.node, launch.argv, { CREDENTIALS_DIRECTORY: this.dir, RUNTIME_DIRECTORY: this.runtimeDir, ...env });
    this.processes.add(p.child);
    void p.exited.then(() => this.processes.delete(p.child));
    return p;
  }

  /** A technician port request with the service token. */
  tech(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          socketPath: this.socket,
          path,
          method,
          headers: { authorization: `Bearer ${this.token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Follow a live stream of the technician port (e.g. /api/events/stream); `text()` is all received so far. */
  stream(path: string): { text(): string } {
    let text = '';
    const req = request({ socketPath: this.socket, path, method: 'GET', headers: { authorization: `Bearer ${this.token}` } }, (res) => {
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    return { text: () => text };
  }

  /** Wait until the technician port answers and the station waits for input with nothing in flight. */
  async idle(timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const s = await this.tech('GET', '/api/status').catch(() => null);
      if (s?.status === 200 && s.body['mode'] === 'idle' && s.body['inFlight'] === null) return;
      if (performance.now() > deadline) throw new Error(`daemon not idle: ${JSON.stringify(s?.body ?? null).slice(0, 300)}`);
      await sleep(20);
    }
  }

  /** Poll the technician status until `predicate` holds. */
  async statusUntil(predicate: (s: Record<string, unknown>) => boolean, what: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const s = await this.tech('GET', '/api/status').catch(() => null);
      if (s?.status === 200 && predicate(s.body)) return s.body;
      if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what} (status ${JSON.stringify(s?.body ?? null).slice(0, 400)})`);
      await sleep(10);
    }
  }

  sim(): SimFile {
    return JSON.parse(readFileSync(this.simFile, 'utf8')) as SimFile;
  }

  /** Poll the simulated hardware's file until `predicate` holds. */
  simUntil(predicate: (f: SimFile) => boolean, what: string, timeoutMs = 10_000): Promise<SimFile> {
    return waitFor(
      what,
      () => {
        try {
          const f = this.sim();
          return predicate(f) ? f : undefined;
        } catch {
          return undefined;
        }
      },
      timeoutMs,
    );
  }

  /** A person opens or closes a door: written to the simulated hardware's file (the daemon applies it). */
  setDoor(box: number, state: DoorState): void {
    const f = this.sim();
    writeFileSync(`${this.simFile}.tmp`, JSON.stringify({ ...f, doors: { ...f.doors, [box]: state } }));
    // A rename, as the daemon writes it: the watcher sees one complete file.
    renameSync(`${this.simFile}.tmp`, this.simFile);
  }

  /** Requests the server recorded after `seq`. */
  since(seq: number): RequestRecord[] {
    return this.server.requests.filter((r) => r.seq > seq);
  }

  async close(): Promise<void> {
    for (const c of this.processes) c.kill('SIGKILL');
    await this.server.stop();
  }
}

// --- a daemon as the unit starts it, on a TCP technician port -----------------------------------

export interface Daemon {
  readonly child: ChildProcess;
  readonly pid: number;
  /** http://127.0.0.1:PORT of the technician port. */
  readonly url: string;
  readonly token: string;
  readonly dir: string;
  /** Every line the daemon wrote to stdout so far. */
  lines(): string[];
  /** Resolves with the first log line (parsed) that satisfies `pred`. */
  waitForLine: DaemonProcess['waitForLine'];
  /** VmRSS and VmHWM (peak) of the daemon, MiB. */
  memory(): { rss: number; hwm: number };
  /**
   * Only when started with `gc: true`: force V8's GC in the daemon, then VmRSS/VmHWM and V8's own
   * figures (MiB). What is left then is what the daemon holds, not garbage V8 has not collected yet.
   */
  memoryAfterGc(): Promise<{ rss: number; hwm: number; heapUsed: number; heapTotal: number; external: number }>;
  stop(): Promise<number | null>;
  /** Stop (SIGTERM) and start again with the same config, port and token: what a restart looks like from outside. */
  restart(): Promise<Daemon>;
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** `opts.gc`: run the daemon through daemon-gc.mjs (runDaemon plus a GC-and-measure IPC hook, --expose-gc). */
export async function startDaemon(serverUrl: string, extra: Record<string, unknown> = {}, opts: { gc?: boolean } = {}): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'daemon-'));
  writeFileSync(join(dir, 'station-password'), STATION.password);
  const token = newToken();
  const port = await freePort();
  const { server, timing, technician, ...rest } = extra as { server?: object; timing?: object; technician?: object };
  const config = {
    station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl: serverUrl, ...server },
    timing: { ...timing },
    storage: { directory: null },
    technician: { listen: { host: '127.0.0.1', port }, tokens: [{ name: 'tester', scope: 'read', hash: hashToken(token) }], ...technician },
    ...rest,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return launch(dir, port, token, opts.gc === true);
}

async function launch(dir: string, port: number, token: string, gc: boolean): Promise<Daemon> {
  const probe = process.env['DAEMON_NODE_FLAGS']?.split(' ').filter(Boolean) ?? [];
  const entry = gc ? ['--expose-gc', GC_WRAPPER] : [MAIN, 'run'];
  const p = spawnDaemon(
    process.execPath,
    [...UNIT_NODE_FLAGS, ...probe, ...entry, '--config', join(dir, 'config.json')],
    { CREDENTIALS_DIRECTORY: dir },
    { ipc: gc, echoNonJson: probe.length > 0 },
  );
  await p.waitForLine((l) => l['msg'] === 'technician port listening', 'the technician port');
  const { child } = p;
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return (await p.exited).code;
  };
  return {
    child,
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}`,
    token,
    dir,
    lines: p.rawLines,
    waitForLine: p.waitForLine,
    memory: p.memory,
    memoryAfterGc() {
      if (!gc) return Promise.reject(new Error('started without gc: true'));
      return new Promise((resolve) => {
        child.once('message', (m: { memory: NodeJS.MemoryUsage }) => {
          const mib = (n: number): number => n / 1_048_576;
          resolve({ ...p.memory(), heapUsed: mib(m.memory.heapUsed), heapTotal: mib(m.memory.heapTotal), external: mib(m.memory.external) });
        });
        child.send({ gc: true });
      });
    },
    stop,
    async restart() {
      await stop();
      return launch(dir, port, token, gc);
    },
  };
}
