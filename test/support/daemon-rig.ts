/**
 * The built daemon (dist/src/main.js) as a process, on simulated hardware whose doors survive a
 * restart (`hardware.stateFile` in the test's temp dir), with its journal in the temp dir, its
 * technician port on a unix socket (a service token), against an in-process reference server that
 * outlives the daemon's restarts the way a library server does.
 *
 * The test stands in for the person at the station: it injects scans and PINs through the technician
 * port and opens and closes doors by writing the simulated hardware's file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/config/schema.js';
import { hashToken, newToken } from '../../src/technician/auth.js';
import type { DoorState } from '../../src/devices/types.js';
import { ReferenceServer, defaultSeed, type RequestRecord } from '../../src/sim/index.js';
import { STATION, until } from './harness.js';

export const MAIN = join(import.meta.dirname, '../../dist/src/main.js');

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** performance.now() of this test process just before spawn (the server's clock is the same). */
  readonly spawnedAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every stdout line so far, parsed (pino JSON). */
  lines(): { msg: string; level: number; [k: string]: unknown }[];
  out(): string;
  err(): string;
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

  /** A fresh reference server (seeded) and a config for the daemon; `extra` overrides sections. */
  static async create(extra: Partial<ConfigInput> = {}): Promise<DaemonRig> {
    const server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
    const url = await server.start();
    const rig = new DaemonRig(server, url);
    rig.configInput = {
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin },
      storage: { directory: rig.stateDir },
      log: { level: 'debug' },
      ...extra,
      hardware: { kind: 'simulated', stateFile: rig.simFile, ...(extra.hardware as object | undefined) },
      debug: { listen: { socket: rig.socket }, tokens: [{ name: 'rig', scope: 'service', hash: hashToken(rig.token) }], ...extra.debug },
    };
    rig.writeConfig();
    return rig;
  }

  writeConfig(config: unknown = this.configInput): void {
    writeFileSync(this.configFile, JSON.stringify(config, null, 2));
  }

  /**
   * Start the daemon (`env` on top of the credentials and runtime directories). `launch`: another
   * node and argv for it (test/bundle/app.test.ts starts the bundled app/ as the unit does).
   */
  start(env: NodeJS.ProcessEnv = {}, launch: { node: string; argv: readonly string[] } = { node: process.execPath, argv: [MAIN, 'run', '--config', this.configFile] }): DaemonProcess {
    const spawnedAt = performance.now();
    const child = spawn(launch.node, launch.argv, {
      env: { PATH: process.env['PATH'], CREDENTIALS_DIRECTORY: this.dir, RUNTIME_DIRECTORY: this.runtimeDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.processes.add(child);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => {
        this.processes.delete(child);
        resolve({ code, signal });
      }),
    );
    return {
      child,
      spawnedAt,
      exited,
      out: () => out,
      err: () => err,
      lines: () =>
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { msg: string; level: number }),
    };
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
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Poll the technician status until `predicate` holds. */
  async statusUntil(predicate: (s: Record<string, unknown>) => boolean, what: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const s = await this.tech('GET', '/api/status').catch(() => null);
      if (s?.status === 200 && predicate(s.body)) return s.body;
      if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what} (status ${JSON.stringify(s?.body ?? null).slice(0, 400)})`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  sim(): SimFile {
    return JSON.parse(readFileSync(this.simFile, 'utf8')) as SimFile;
  }

  /** Poll the simulated hardware's file until `predicate` holds. */
  simUntil(predicate: (f: SimFile) => boolean, what: string, timeoutMs = 10_000): Promise<SimFile> {
    return until(() => {
      try {
        const f = this.sim();
        return predicate(f) ? f : undefined;
      } catch {
        return undefined;
      }
    }, what, timeoutMs);
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
