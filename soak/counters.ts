/**
 * What the soak counts on the station's side, from its public observation points only: the
 * runtime's events (sent, done, mode, lock), the door sensors' changes, and the answers the
 * protocol client hands back (which box-opens arrived: each entitles its boxes to one pulse).
 */
import type { SimulatedHardware } from '../src/devices/simulated/hardware.js';
import type { ProtocolSender } from '../src/protocol/client.js';
import type { ModeKind } from '../src/station/core-types.js';
import type { StationRuntime } from '../src/station/runtime.js';

const bump = (o: Record<string, number>, k: string): void => {
  o[k] = (o[k] ?? 0) + 1;
};

export class SoakCounters {
  readonly sent: Record<string, number> = {};
  readonly answered: Record<string, number> = {};
  readonly unanswered: Record<string, number> = {};
  resent = 0;
  onWire = 0;
  deactivations = 0;
  recoveries = 0;
  doorTransitions = 0;
  readonly madePerBox: Record<string, number> = {};
  pulses = 0;
  unintendedPulses = 0;
  boxOpens = 0;
  readonly faultPhases: Record<string, number> = {};
  /** boxId -> pulses a received box-open still entitles it to. */
  private readonly credits = new Map<string, number>();

  constructor(private readonly stationBoxes: readonly string[]) {}

  get heartbeats(): number {
    return this.sent['state'] ?? 0;
  }

  /** Box-opens answered to /item-identify or /pin-enter that did not (yet) lead to a pulse. */
  get boxOpenNotPulsed(): number {
    return [...this.credits.values()].reduce((s, n) => s + n, 0);
  }

  phase(fault: string): void {
    bump(this.faultPhases, fault);
  }

  /** The real client, watched from outside; every argument passes through unchanged. */
  watchClient(real: ProtocolSender): ProtocolSender {
    return {
      send: async (...args: Parameters<ProtocolSender['send']>) => {
        const outcome = await real.send(...args);
        const [endpoint] = args;
        const r = outcome.result;
        if (
          r.kind === 'answered' &&
          r.answer.kind === 'command' &&
          r.answer.command.type === 'box-open' &&
          (endpoint === 'item-identify' || endpoint === 'pin-enter')
        ) {
          const boxes = r.answer.command.boxes;
          if (boxes.every((b) => this.stationBoxes.includes(b))) {
            this.boxOpens++;
            for (const b of boxes) this.credits.set(b, (this.credits.get(b) ?? 0) + 1);
          }
        }
        return outcome;
      },
    };
  }

  watch(runtime: StationRuntime, sim: SimulatedHardware): void {
    let mode: ModeKind = runtime.snapshot().mode.kind;
    runtime.onEvent((e) => {
      switch (e.type) {
        case 'event-sent':
          bump(this.sent, e.endpoint);
          return;
        case 'event-done':
          bump(e.record.outcome.startsWith('unanswered') ? this.unanswered : this.answered, e.record.endpoint);
          this.resent += e.record.attempts - 1;
          this.onWire += e.record.attempts;
          return;
        case 'mode':
          if (e.mode === 'deactivated') this.deactivations++;
          else if (mode === 'deactivated') this.recoveries++;
          mode = e.mode;
          return;
        case 'lock': {
          if (!e.energized) return;
          this.pulses++;
          const credit = this.credits.get(e.boxId) ?? 0;
          if (credit > 0) this.credits.set(e.boxId, credit - 1);
          else this.unintendedPulses++;
          return;
        }
        case 'box':
        case 'display':
        case 'alarm':
        case 'rfid-security-failed':
          return;
      }
    });
    sim.doors.onChange((box) => {
      this.doorTransitions++;
      bump(this.madePerBox, String(box));
    });
  }
}
