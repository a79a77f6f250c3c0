/**
 * The built daemon with a kiosk page (`hardware.kiosk` on the simulated station), as the field runs
 * it: socket-activated — socket-holder.py holds 127.0.0.1:PORT the way pickup-station-kiosk.socket
 * does (SendBuffer= included) and runs the daemon with the socket as fd 3 — or, for comparison,
 * binding the port itself (the development switch `developmentOwnPort`), or neither (the kiosk then
 * not served). The kiosk's secret's hash is in a file, as the socket unit writes it.
 * The reference server, the config and the technician port (a unix socket, a service token) are a
 * DaemonRig's.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kioskSecretHash } from '../../src/devices/kiosk/secret.js';
import { DaemonRig, freePort, MAIN, UNIT_NODE_FLAGS, type DaemonProcess } from './daemon.js';

const HOLDER = join(import.meta.dirname, 'socket-holder.py');
/** The socket unit's SendBuffer= (systemd/pickup-station-kiosk.socket). */
export const UNIT_SEND_BUFFER = (() => {
  const m = /^SendBuffer=(\d+)K$/m.exec(readFileSync(join(import.meta.dirname, '../../systemd/pickup-station-kiosk.socket'), 'utf8'));
  if (!m) throw new Error('no SendBuffer=<n>K in systemd/pickup-station-kiosk.socket');
  return Number(m[1]) * 1024;
})();

export interface KioskDaemonOptions {
  /** Held by socket-holder.py (systemd's part) or bound by the daemon itself. */
  readonly activated: boolean;
  /** Not activated: bind the port (`developmentOwnPort`, the default) or not (the kiosk then not served). */
  readonly ownPort?: boolean;
  /** Keys of the kiosk's profile section. */
  readonly kiosk?: Record<string, unknown>;
  /** More environment for the daemon. */
  readonly env?: NodeJS.ProcessEnv;
}

export class KioskDaemon {
  readonly secret = randomBytes(32).toString('hex');
  private proc: DaemonProcess | null = null;
  private pid = 0;

  private constructor(
    readonly rig: DaemonRig,
    readonly port: number,
    private readonly o: KioskDaemonOptions,
  ) {}

  static async start(o: KioskDaemonOptions): Promise<KioskDaemon> {
    const port = await freePort();
    const rig = await DaemonRig.create({
      hardware: {
        kind: 'simulated',
        doorSpringMs: 20,
        kiosk: { kind: 'kiosk', port, ...(o.activated ? {} : { developmentOwnPort: o.ownPort ?? true }), ...o.kiosk },
      },
      timing: { heartbeatIntervalMs: 1_000 },
      log: { level: 'info' },
    });
    const k = new KioskDaemon(rig, port, o);
    const hashFile = join(rig.dir, 'secret.sha256');
    writeFileSync(hashFile, `${kioskSecretHash(k.secret)}\n`);
    const hw = rig.configInput.hardware as { kiosk: Record<string, unknown> };
    hw.kiosk['secretHashFile'] = hashFile;
    rig.writeConfig();
    await k.launch();
    return k;
  }

  /** The daemon's own pid (not the holder's). */
  get daemonPid(): number {
    return this.pid;
  }

  get process(): DaemonProcess {
    if (!this.proc) throw new Error('not started');
    return this.proc;
  }

  private async launch(): Promise<void> {
    const daemon = [process.execPath, ...UNIT_NODE_FLAGS, MAIN, 'run', '--config', this.rig.configFile];
    const env = this.o.env ?? {};
    this.proc = this.o.activated
      ? this.rig.start(env, { node: 'python3', argv: [HOLDER, String(this.port), String(UNIT_SEND_BUFFER), '--', ...daemon] })
      : this.rig.start(env, { node: daemon[0]!, argv: daemon.slice(1) });
    if (!this.o.activated) this.pid = this.proc.child.pid ?? 0;
    await this.ready(0);
  }

  /** The hash file the daemon checks the secret against (the socket unit's). */
  get hashFile(): string {
    return join(this.rig.dir, 'secret.sha256');
  }

  /** The daemon (re)started: its pid, the kiosk page taken over (or refused), the station idle. */
  private async ready(startedBefore: number): Promise<void> {
    const p = this.process;
    const count = (pred: (l: Record<string, unknown>) => boolean): number => p.lines().filter(pred).length;
    const pages = (l: Record<string, unknown>): boolean =>
      typeof l['msg'] === 'string' && /^(kiosk page (listening|on the socket)|the kiosk page is not served)/.test(l['msg']);
    const pagesBefore = count(pages);
    if (this.o.activated) {
      await p.waitForLine(() => count((l) => l['holder'] === 'started') > startedBefore, 'the daemon started');
      this.pid = p
        .lines()
        .filter((l) => l['holder'] === 'started')
        .at(-1)?.['pid'] as number;
    }
    await p.waitForLine(() => count(pages) > pagesBefore, 'the kiosk page', 30_000);
    await this.rig.idle(30_000);
  }

  /** Stop the daemon; with socket activation the port stays held (the holder's SIGUSR1). */
  async stopDaemon(): Promise<void> {
    const p = this.process;
    if (!this.o.activated) {
      p.child.kill('SIGTERM');
      await p.exited;
      return;
    }
    const exits = p.lines().filter((l) => l['holder'] === 'exited').length;
    p.child.kill('SIGUSR1');
    await p.waitForLine(() => p.lines().filter((l) => l['holder'] === 'exited').length > exits, 'the daemon stopped');
  }

  /** Start it again (socket activation: on the same held socket). */
  async startDaemon(): Promise<void> {
    if (!this.o.activated) return this.launch();
    const p = this.process;
    const starts = p.lines().filter((l) => l['holder'] === 'started').length;
    p.child.kill('SIGUSR2');
    await this.ready(starts);
  }

  /** VmRSS and VmHWM (peak) of the daemon, MiB. */
  memory(): { rss: number; hwm: number } {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  }

  /** The daemons' log lines (pino, parsed), the holder's left out. */
  logs(): Record<string, unknown>[] {
    return this.process.lines().filter((l) => l['holder'] === undefined);
  }

  async close(): Promise<void> {
    const p = this.proc;
    if (p && p.child.exitCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    await this.rig.close();
  }
}
