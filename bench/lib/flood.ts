/**
 * The attacker of the flood figures (bench/kiosk.ts, bench/technician.ts): test/support/socket-flood.mjs
 * in its own process (its CPU is not the station's), holding idle, slowloris and asking sockets
 * without credentials against a port and reconnecting whenever the station closes one.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO } from './repo.js';

const FLOOD = join(REPO, 'test/support/socket-flood.mjs');

export interface Flood {
  /** Once every socket has been asked for (the script's `ready` line). */
  readonly ready: Promise<void>;
  /** Stop it; what it saw (connections opened, closed by the station, 401 and 408 answers). */
  stop(): Promise<Record<string, number>>;
}

export function startFlood(port: number, sockets: { idle: number; slow: number; ask?: number }): Flood {
  const args = [FLOOD, String(port), String(sockets.idle), String(sockets.slow), '200', '200', String(sockets.ask ?? 0)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('ready\n')) resolve();
    });
    void exited.then(() => reject(new Error('the socket flood exited before it was ready')));
  });
  return {
    ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      return JSON.parse(out.split('\n').find((l) => l.startsWith('{')) ?? '{}') as Record<string, number>;
    },
  };
}

/** A free TCP port on 127.0.0.1, for a daemon to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
