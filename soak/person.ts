/**
 * The people at a soaked station: a librarian depositing items (and now and then cancelling), a
 * reader picking up with a PIN, someone forcing a door, each acting at a human pace whatever the
 * station shows — so input arrives during faults, deactivation and refusals too. Each asks the
 * server process for a fresh item or PIN first, as a library's system would have one ready.
 *
 * Whoever opens a door closes it again after a while; a door that opened without anyone waiting
 * for it (it should not happen) is closed by the janitor after a few seconds, so nothing stays open.
 */
import type { SimulatedHardware } from '../src/devices/simulated/hardware.js';
import type { ServerProcess } from './ipc.js';

export interface PersonCounts {
  deposits: number;
  pickups: number;
  cancels: number;
  forced: number;
  /** Scans and PINs after which no door opened (refused, fault, deactivated). */
  notOpened: number;
  /** Doors closed by the janitor (opened with nobody waiting for them). */
  closedByJanitor: number;
  /** Which: "box N at <ISO time>", for looking them up in the station's log. */
  janitorClosed: string[];
}

type Action = 'deposit' | 'deposit-cancel' | 'pickup' | 'forced' | 'pause';
const ACTIONS: readonly [Action, number][] = [
  ['deposit', 30],
  ['deposit-cancel', 10],
  ['pickup', 30],
  ['forced', 10],
  ['pause', 20],
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class People {
  readonly counts: PersonCounts = { deposits: 0, pickups: 0, cancels: 0, forced: 0, notOpened: 0, closedByJanitor: 0, janitorClosed: [] };
  /** Every PIN typed (for the secrets check). */
  readonly pins: string[] = [];
  /** Every identifier scanned (the secrets check looks for each in full). */
  readonly identifiers: string[] = [];
  private readonly held = new Set<number>();
  private readonly openSince = new Map<number, number>();
  private stopped = false;

  constructor(
    private readonly sim: SimulatedHardware,
    private readonly server: ServerProcess,
    private readonly boxes: readonly number[],
    private readonly random: () => number = Math.random,
  ) {
    sim.doors.onChange((box, st) => {
      if (st === 'OPEN') this.openSince.set(box, performance.now());
      else this.openSince.delete(box);
    });
  }

  private between(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  private pick(): Action {
    let r = this.random() * ACTIONS.reduce((s, [, w]) => s + w, 0);
    for (const [a, w] of ACTIONS) if ((r -= w) < 0) return a;
    return 'pause';
  }

  private freeBox(): number | null {
    const free = this.boxes.filter((n) => !this.held.has(n) && this.sim.doors.peek(n) === 'CLOSED');
    return free.length === 0 ? null : (free[Math.floor(this.random() * free.length)] ?? null);
  }

  private async door(box: number, state: 'OPEN' | 'CLOSED', timeoutMs: number): Promise<boolean> {
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      if (this.sim.doors.peek(box) === state) return true;
      await sleep(10);
    }
    return false;
  }

  /** Act until stop(); then every door this person holds is closed. */
  async run(): Promise<void> {
    const janitor = setInterval(() => this.janitor(), 1_000);
    try {
      while (!this.stopped) {
        await sleep(this.between(150, 700));
        if (this.stopped) break;
        await this.act(this.pick());
      }
    } finally {
      clearInterval(janitor);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Close every open door (the end of the day). */
  closeAll(): void {
    for (const n of this.boxes) if (this.sim.doors.peek(n) === 'OPEN') this.sim.closeDoor(n);
  }

  private janitor(): void {
    const now = performance.now();
    for (const [box, since] of this.openSince) {
      if (!this.held.has(box) && now - since > 3_000) {
        this.counts.closedByJanitor++;
        this.counts.janitorClosed.push(`box ${box} opened at ${new Date(Date.now() - (now - since)).toISOString()}`);
        this.sim.closeDoor(box);
      }
    }
  }

  private async act(action: Action): Promise<void> {
    if (action === 'pause') return sleep(this.between(200, 1_500));
    const box = this.freeBox();
    if (box === null) return;
    this.held.add(box);
    try {
      switch (action) {
        case 'deposit':
        case 'deposit-cancel': {
          const { identifierValue } = await this.server.call({ op: 'deposit', box }, 'deposit');
          this.identifiers.push(identifierValue);
          this.sim.scanBarcode(identifierValue);
          if (!(await this.door(box, 'OPEN', 4_000))) {
            this.counts.notOpened++;
            return;
          }
          this.counts.deposits++;
          if (action === 'deposit-cancel') {
            await sleep(this.between(100, 400));
            this.sim.pressCancel();
            this.counts.cancels++;
          }
          await sleep(this.between(200, 900));
          this.sim.closeDoor(box);
          return;
        }
        case 'pickup': {
          const { pin } = await this.server.call({ op: 'pickup', box }, 'pickup');
          this.pins.push(pin);
          this.sim.typePin(pin);
          if (!(await this.door(box, 'OPEN', 4_000))) {
            this.counts.notOpened++;
            return;
          }
          this.counts.pickups++;
          await sleep(this.between(200, 900));
          this.sim.closeDoor(box);
          return;
        }
        case 'forced':
          this.sim.forceOpen(box);
          this.counts.forced++;
          await sleep(this.between(300, 1_200));
          this.sim.closeDoor(box);
          return;
      }
    } finally {
      this.held.delete(box);
    }
  }
}
