/**
 * The built daemon (dist/) as its own process, started the way the unit starts it (the same V8
 * flag), on simulated hardware against a given server, with its technician port on a free
 * 127.0.0.1 port and a read token. Its memory is read from /proc, so a figure is the station's
 * own, not the test runner's.
 *
 * Probing: HOSTILE_NODE_FLAGS="--trace-gc" adds node flags and passes the daemon's non-JSON output to
 * stderr (e.g. to see when V8's memory reducer returns a flood's garbage).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashToken, newToken } from '../../../src/technician/auth.js';
import { placeCommand, readUnit } from '../../../bench/lib/unit.js';
import { STATION } from '../../support/harness.js';

const MAIN = join(import.meta.dirname, '../../../dist/src/main.js');
/** As in systemd/pickup-station.service's ExecStart= (read from it, so the two cannot drift). */
export const UNIT_NODE_FLAGS: readonly string[] = (() => {
  const unit = readUnit();
  return placeCommand(unit.execStart, unit, { node: 'node', release: '', configFile: '', cacheDir: '' }).nodeFlags;
})();

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
  waitForLine(pred: (l: Record<string, unknown>) => boolean, what: string, timeoutMs?: number): Promise<Record<string, unknown>>;
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

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const GC_WRAPPER = join(import.meta.dirname, 'daemon-gc.mjs');

/** `opts.gc`: run the daemon through daemon-gc.mjs (runDaemon plus a GC-and-measure IPC hook, --expose-gc). */
export async function startDaemon(serverUrl: string, extra: Record<string, unknown> = {}, opts: { gc?: boolean } = {}): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-daemon-'));
  writeFileSync(join(dir, 'station-password'), STATION.password);
  const token = newToken();
  const port = await freePort();
  const { server, timing, debug, ...rest } = extra as { server?: object; timing?: object; debug?: object };
  const config = {
    station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl: serverUrl, ...server },
    timing: { ...timing },
    storage: { directory: null },
    debug: { listen: { host: '127.0.0.1', port }, tokens: [{ name: 'tester', scope: 'read', hash: hashToken(token) }], ...debug },
    ...rest,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return launch(dir, port, token, opts.gc === true);
}

async function launch(dir: string, port: number, token: string, gc: boolean): Promise<Daemon> {
  const probe = process.env['HOSTILE_NODE_FLAGS']?.split(' ').filter(Boolean) ?? [];
  const entry = gc ? ['--expose-gc', GC_WRAPPER] : [MAIN, 'run'];
  const child = spawn(process.execPath, [...UNIT_NODE_FLAGS, ...probe, ...entry, '--config', join(dir, 'config.json')], {
    env: { PATH: process.env['PATH'], CREDENTIALS_DIRECTORY: dir },
    stdio: ['ignore', 'pipe', 'pipe', ...(gc ? (['ipc'] as const) : [])],
  });
  const out: string[] = [];
  let partial = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (b: Buffer) => {
    const text = partial + b.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    out.push(...parts.filter((l) => l !== ''));
    if (probe.length > 0) for (const l of parts) if (!l.startsWith('{')) console.error(l);
    for (const w of waiters) w();
  });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const parsed = (l: string): Record<string, unknown> => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const waitForLine: Daemon['waitForLine'] = (pred, what, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = out.map(parsed).find(pred);
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
  await waitForLine((l) => l['msg'] === 'technician port listening', 'the technician port');
  const pid = child.pid ?? 0;
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  const memory = (): { rss: number; hwm: number } => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  };
  return {
    child,
    pid,
    url: `http://127.0.0.1:${port}`,
    token,
    dir,
    lines: () => [...out],
    waitForLine,
    memory,
    memoryAfterGc() {
      if (!gc) return Promise.reject(new Error('started without gc: true'));
      return new Promise((resolve) => {
        child.once('message', (m: { memory: NodeJS.MemoryUsage }) => {
          const mib = (n: number): number => n / 1_048_576;
          resolve({ ...memory(), heapUsed: mib(m.memory.heapUsed), heapTotal: mib(m.memory.heapTotal), external: mib(m.memory.external) });
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
