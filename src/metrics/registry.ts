/**
 * The station's Prometheus metrics (prom-client). Loaded only by a dynamic import (service.ts,
 * fleet), so a station with metrics off never loads prom-client, and one with metrics on loads it
 * after its first protocol event.
 *
 * Two kinds of series:
 * - counted from runtime events as they happen (`StationRecorder.note`): events by endpoint and
 *   outcome, attempts, answer latency, deactivations, lock pulses, alarms raised;
 * - read from the running station at scrape time (gauges with `collect`): mode, doors, alarms in
 *   force, device health, faults, the measurements of the last /state, the age of the last
 *   answered /state. Gauges are reset and refilled on every scrape, so a box or a device that a
 *   reload removed leaves no stale series.
 *
 * Every label value comes from a closed set or from the config (station id, box number, device
 * name); never from a scan, a PIN, a token, an eventId or a server's text.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type LabelValues } from 'prom-client';
import { readVendor, supportDaysLeft, type VendorView } from '../release-info.js';
import type { Endpoint } from '../protocol/types.js';
import type { AlarmKind, ModeKind } from '../station/core-types.js';
import type { ConsoleLogins } from '../service/console-logins.js';
import type { InstallRecord } from '../service/install-record.js';
import { VERSION } from '../version.js';
import { KIOSK_REFUSAL_REASONS, type RfidProblem, type RfidReaderStats } from '../devices/types.js';
import { deviceRoles, type CountedEvent, type StationNow, type StationView } from './view.js';

const RFID_PROBLEMS: readonly RfidProblem[] = ['blank', 'unknown', 'truncated', 'damaged', 'read-failed'];

export const PREFIX = 'pickup_station_';
/** Answer latency buckets, seconds: a library server answers in tens of ms; the spec's time-out is 20 s. */
export const ANSWER_BUCKETS_SECONDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20] as const;
const MODES: readonly ModeKind[] = ['starting', 'idle', 'opening', 'closing', 'disabled', 'deactivated'];
const ALARM_KINDS: readonly AlarmKind[] = ['forced-open', 'door-ajar', 'tamper', 'pin-lockout', 'unknown-usb'];

export interface StationMetricsOptions {
  /**
   * Add prom-client's process and Node metrics (CPU, memory, event loop, GC), named
   * `pickup_station_process_…` / `pickup_station_nodejs_…`: node_exporter has process_* of its own,
   * and the textfile collector refuses a file whose names clash with them.
   */
  readonly processMetrics: boolean;
  /** Sampling interval of the event-loop delay histogram, ms. */
  readonly eventLoopResolutionMs: number;
  /** Monotonic clock, ms. */
  readonly now?: () => number;
  /**
   * The version the installer installed last (read at scrape time), or null when unknown: adds
   * `release_info` and `release_mismatch` (this process's version is the running one).
   */
  readonly installedVersion?: () => string | null;
  /**
   * The installer's record (read at scrape time): adds `release_proven`, `upgrade_pending` and
   * `release_known_bad`.
   */
  readonly installRecord?: () => InstallRecord | null;
  /**
   * The release's vendor statements (src/release-info.ts; default: this release's vendor.json):
   * a release with a support period adds `support_days_left`.
   */
  readonly vendor?: VendorView;
  /** Wall clock, ms since the epoch: the support period is a calendar date. */
  readonly wallClock?: () => number;
  /**
   * Failed logins on the station's consoles (read at scrape time, src/service/console-logins.ts):
   * adds `console_login_failures_total`, `console_login_last_failure_timestamp_seconds` and
   * `console_login_watch_ok`.
   */
  readonly consoleLogins?: () => ConsoleLogins;
}

/** Counts one station's runtime events. */
export interface StationRecorder {
  note(e: CountedEvent): void;
  /** Forget the station: its gauges disappear from the next scrape (its counters stay, as counters do). */
  remove(): void;
}

interface Tracked {
  readonly view: StationView;
  /** When this station was added (the age of the last answered /state counts from here before one). */
  readonly since: number;
  lastStateAnswer: number | null;
}

type Fill<L extends string> = (set: (labels: LabelValues<L>, value: number) => void, station: string, now: StationNow, t: Tracked) => void;

export class StationMetrics {
  readonly registry = new Registry();
  private readonly stations = new Map<string, Tracked>();
  private readonly now: () => number;
  private readonly events: Counter<'station' | 'endpoint' | 'outcome'>;
  private readonly attempts: Counter<'station' | 'endpoint'>;
  private readonly answerSeconds: Histogram<'station'>;
  private readonly deactivations: Counter<'station'>;
  private readonly pulses: Counter<'station' | 'box'>;
  private readonly alarms: Counter<'station' | 'kind'>;
  private readonly securityNotCleared: Counter<'station'>;

  constructor(opts: StationMetricsOptions) {
    this.now = opts.now ?? (() => performance.now());
    const registers = [this.registry];
    this.events = new Counter({
      name: `${PREFIX}events_total`,
      help: 'Protocol events finished, by endpoint and outcome (the command type answered, exception, invalid, or unanswered after every attempt).',
      labelNames: ['station', 'endpoint', 'outcome'],
      registers,
    });
    this.attempts = new Counter({
      name: `${PREFIX}event_attempts_total`,
      help: 'HTTP attempts of protocol events (one per event plus one per resend).',
      labelNames: ['station', 'endpoint'],
      registers,
    });
    // By station only, not by endpoint: /state is nearly every answer anyway, and at 1,000 stations
    // the histogram by endpoint was more than half of a scrape's render time (docs/decisions/0026).
    this.answerSeconds = new Histogram({
      name: `${PREFIX}answer_duration_seconds`,
      help: 'Time from sending the answering HTTP attempt of a protocol event to its parsed answer.',
      labelNames: ['station'],
      buckets: [...ANSWER_BUCKETS_SECONDS],
      registers,
    });
    this.deactivations = new Counter({
      name: `${PREFIX}deactivations_total`,
      help: 'Times the station entered deactivated mode (an event unanswered after every attempt).',
      labelNames: ['station'],
      registers,
    });
    this.pulses = new Counter({ name: `${PREFIX}lock_pulses_total`, help: 'Lock pulses, by box number.', labelNames: ['station', 'box'], registers });
    this.alarms = new Counter({ name: `${PREFIX}alarms_total`, help: 'Alarms raised, by kind.', labelNames: ['station', 'kind'], registers });
    this.securityNotCleared = new Counter({
      name: `${PREFIX}rfid_security_not_cleared_total`,
      help: "Deposited items whose RFID security bit could not be cleared within the window (the library's exit gates may alarm when it is picked up).",
      labelNames: ['station'],
      registers,
    });
    this.rfidCounters();

    this.gauge(`${PREFIX}mode`, 'The station mode: 1 for the current one, 0 for the others.', ['station', 'mode'], (set, station, s) => {
      const mode = s.runtime.snapshot().mode.kind;
      for (const m of MODES) set({ station, mode: m }, m === mode ? 1 : 0);
    });
    this.gauge(
      `${PREFIX}state_answer_age_seconds`,
      'Seconds since the last answered /state (since the station started when none was answered yet).',
      ['station'],
      (set, station, _s, t) => {
        set({ station }, (this.now() - (t.lastStateAnswer ?? t.since)) / 1000);
      },
    );
    this.gauge(`${PREFIX}door_open`, 'Door state by box number: 1 open, 0 closed.', ['station', 'box'], (set, station, s) => {
      const doors = s.runtime.snapshot().boxes;
      for (const b of s.boxes) set({ station, box: String(b.number) }, doors[b.id] === 'OPEN' ? 1 : 0);
    });
    this.gauge(`${PREFIX}alarm_active`, 'Alarms in force, by kind.', ['station', 'kind'], (set, station, s) => {
      const active = s.runtime.snapshot().alarms;
      for (const kind of ALARM_KINDS) set({ station, kind }, active.filter((a) => a.kind === kind).length);
    });
    this.gauge(
      `${PREFIX}faults`,
      'Lasting error conditions (device missing, service mode): /state says DOWN while any is set.',
      ['station'],
      (set, station, s) => {
        set({ station }, Object.keys(s.runtime.snapshot().faults).length);
      },
    );
    this.gauge(`${PREFIX}device_up`, 'Device health: 1 working, 0 not (by device name and role).', ['station', 'device', 'role'], (set, station, s) => {
      for (const { device, role } of deviceRoles(s.hardware)) set({ station, device: device.name, role }, device.health().ok ? 1 : 0);
    });
    this.gauge(
      `${PREFIX}usb_unknown_devices`,
      'USB devices plugged in that the board profile does not name: kept unauthorised, no driver bound (absent: not watched, simulated hardware).',
      ['station'],
      (set, station, s) => {
        const usb = s.hardware.usb ?? null;
        if (usb !== null) set({ station }, usb.unknown().length);
      },
    );
    const stations = this.stations;
    new Counter({
      name: `${PREFIX}usb_unknown_devices_total`,
      help: 'USB devices the board profile does not name plugged in since the station started (each plug-in once).',
      labelNames: ['station'],
      registers,
      collect() {
        this.reset();
        for (const t of stations.values()) {
          const usb = t.view.current()?.hardware.usb ?? null;
          if (usb !== null) this.inc({ station: t.view.stationId }, usb.seenTotal());
        }
      },
    });
    new Counter({
      name: `${PREFIX}kiosk_refusals_total`,
      help: "Requests the kiosk page's port refused since the process started, by reason (no-secret: keys or a stream without the kiosk's secret; wrong-host, foreign-origin: another page's requests; absent: no kiosk page).",
      labelNames: ['station', 'reason'],
      registers,
      collect() {
        this.reset();
        for (const t of stations.values()) {
          const kiosk = t.view.current()?.hardware.kiosk ?? null;
          if (kiosk === null) continue;
          const counts = kiosk.refusals();
          for (const reason of KIOSK_REFUSAL_REASONS) this.inc({ station: t.view.stationId, reason }, counts[reason]);
        }
      },
    });
    this.gauge(
      `${PREFIX}usb_guard_enforcing`,
      'USBGuard enforces the USB policy: 1 while usbguard.service runs, 0 when it does not (the station is out of service meanwhile; absent: not watched).',
      ['station'],
      (set, station, s) => {
        const guard = s.hardware.usbGuard ?? null;
        if (guard !== null) set({ station }, guard.enforcing() ? 1 : 0);
      },
    );
    this.gauge(
      `${PREFIX}usb_authorized_default`,
      "The kernel's usbcore.authorized_default at this boot: 0 keeps USB devices present at power-on unauthorised until USBGuard judges them; -1 or 1 authorises them first (absent: unknown or not watched).",
      ['station'],
      (set, station, s) => {
        const value = Number(s.hardware.usbGuard?.bootDefault() ?? Number.NaN);
        if (Number.isInteger(value)) set({ station }, value);
      },
    );
    this.gauge(`${PREFIX}input_voltage_volts`, 'Input voltage as reported in the last /state (absent when not measured).', ['station'], (set, station, s) => {
      const v = s.runtime.lastPower()?.inputVoltage;
      if (typeof v === 'number') set({ station }, v);
    });
    this.gauge(
      `${PREFIX}signal_strength_percent`,
      'Internet signal strength as reported in the last /state (100 wired; absent when not measured).',
      ['station'],
      (set, station, s) => {
        const v = s.runtime.lastPower()?.internetSignalStrength;
        if (typeof v === 'number') set({ station }, v);
      },
    );
    this.gauge(`${PREFIX}journal_ok`, 'The journal keeps its records (1), or cannot write them (0): restart truth is lost.', ['station'], (set, station, s) => {
      set({ station }, s.runtime.journalHealth().ok ? 1 : 0);
    });
    this.gauge(
      `${PREFIX}journal_problem`,
      'The journal reports a problem (1): damaged or unreadable at start (set aside), or a failed write; 0 once it writes again.',
      ['station'],
      (set, station, s) => {
        set({ station }, s.runtime.journalHealth().problem === null ? 0 : 1);
      },
    );
    this.gauge(
      `${PREFIX}config_restart_needed`,
      'Config keys changed by a reload that only a process restart applies (systemctl restart pickup-station); 0 when none.',
      ['station'],
      (set, station, _s, t) => set({ station }, t.view.restartNeeded?.().length ?? 0),
    );
    new Gauge({ name: `${PREFIX}build_info`, help: 'Always 1; the labels say which software runs.', labelNames: ['version', 'node'], registers }).set(
      { version: VERSION, node: process.version },
      1,
    );
    const installed = opts.installedVersion;
    if (installed !== undefined) {
      this.gauge(
        `${PREFIX}release_info`,
        'Always 1; running: the version of this process, installed: the one the installer installed last (differs after an automatic rollback).',
        ['station', 'running', 'installed'],
        (set, station) => set({ station, running: VERSION, installed: installed() ?? VERSION }, 1),
      );
      this.gauge(
        `${PREFIX}release_mismatch`,
        '1 when the running version is not the installed one (an upgrade failed its health check and was rolled back), else 0.',
        ['station'],
        (set, station) => {
          const v = installed();
          set({ station }, v !== null && v !== VERSION ? 1 : 0);
        },
      );
    }
    const record = opts.installRecord;
    if (record !== undefined) {
      this.gauge(
        `${PREFIX}release_proven`,
        '1 when the running release has proven itself healthy since its switch; 0 while its proof is under way or was cut off (absent: not installed by the installer).',
        ['station'],
        (set, station) => {
          const r = record();
          if (r !== null && r.running === VERSION && r.proof !== null) set({ station }, r.proof === 'proven' ? 1 : 0);
        },
      );
      this.gauge(
        `${PREFIX}upgrade_pending`,
        '1 while an installed release waits for its switch (the station in use, the unit masked or stopped); version: that release.',
        ['station', 'version'],
        (set, station) => {
          const pending = record()?.pending ?? null;
          set({ station, version: pending !== null && pending !== VERSION ? pending : '' }, pending !== null && pending !== VERSION ? 1 : 0);
        },
      );
      this.gauge(
        `${PREFIX}release_known_bad`,
        '1 when a release failed its proof and is not tried again until a newer one arrives; version: that release.',
        ['station', 'version'],
        (set, station) => {
          const bad = record()?.knownBad ?? null;
          set({ station, version: bad?.version ?? '' }, bad === null ? 0 : 1);
        },
      );
    }
    const vendor = opts.vendor ?? readVendor();
    if (vendor.kind === 'release') {
      const wallClock = opts.wallClock ?? Date.now;
      this.gauge(
        `${PREFIX}support_days_left`,
        'Whole days of security fixes left for the running release line (0: its last day; negative: support has ended). support_until: the date its build declared.',
        ['station', 'support_until'],
        (set, station) => set({ station, support_until: vendor.supportUntil }, supportDaysLeft(vendor.supportUntil, wallClock())),
      );
    }
    const consoleLogins = opts.consoleLogins;
    if (consoleLogins !== undefined) {
      const stations = this.stations;
      // One read per scrape for the three series: the counter reads, the gauges use what it read.
      let seen: ConsoleLogins = { failed: 0, last: null, problem: null };
      new Counter({
        name: `${PREFIX}console_login_failures_total`,
        help: 'Failed logins on a console of the station (a virtual terminal, a serial console) since the daemon started, from the failed-login record (metrics.consoleLoginFile).',
        labelNames: ['station'],
        registers,
        collect() {
          seen = consoleLogins();
          this.reset();
          for (const station of stations.keys()) this.inc({ station }, seen.failed);
        },
      });
      this.gauge(
        `${PREFIX}console_login_last_failure_timestamp_seconds`,
        'Unix time of the newest failed console login in the failed-login record (before the daemon started too); absent when there is none.',
        ['station'],
        (set, station) => {
          if (seen.last !== null) set({ station }, Math.floor(seen.last.at.getTime() / 1000));
        },
      );
      this.gauge(
        `${PREFIX}console_login_watch_ok`,
        '1 while the failed-login record can be read; 0 when it cannot (missing, no permission): console logins go unseen.',
        ['station'],
        (set, station) => set({ station }, seen.problem === null ? 1 : 0),
      );
    }
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: PREFIX, eventLoopMonitoringPrecision: opts.eventLoopResolutionMs });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every series in the Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Start keeping the metrics of one station. A station id is added once. `since`: when the
   * station started (monotonic ms; default now), for the age of the last answered /state before one.
   */
  add(view: StationView, since = this.now()): StationRecorder {
    const station = view.stationId;
    if (this.stations.has(station)) throw new Error(`station ${station} is already in the metrics`);
    const t: Tracked = { view, since, lastStateAnswer: null };
    this.stations.set(station, t);
    // Counters that alert rules take increase() of start at 0: a series born at 1 has no increase.
    this.deactivations.inc({ station }, 0);
    this.securityNotCleared.inc({ station }, 0);
    for (const kind of ALARM_KINDS) this.alarms.inc({ station, kind }, 0);
    for (const b of view.current()?.boxes ?? []) this.pulses.inc({ station, box: String(b.number) }, 0);
    return {
      note: (e) => this.note(t, e),
      remove: () => {
        this.stations.delete(station);
      },
    };
  }

  private note(t: Tracked, e: CountedEvent): void {
    const station = t.view.stationId;
    switch (e.type) {
      case 'event-done': {
        const endpoint: Endpoint = e.record.endpoint;
        this.events.inc({ station, endpoint, outcome: e.record.outcomeKind });
        this.attempts.inc({ station, endpoint }, e.record.attempts);
        if (e.record.answerMs !== null) {
          this.answerSeconds.observe({ station }, e.record.answerMs / 1000);
          // When it finished (the runtime's clock), not when it was counted: events seen before
          // prom-client was loaded are counted later (service.ts).
          if (endpoint === 'state') t.lastStateAnswer = e.record.startedAt + e.record.ms;
        }
        return;
      }
      case 'lock':
        if (e.energized) this.pulses.inc({ station, box: String(e.number) });
        return;
      case 'mode':
        if (e.mode === 'deactivated') this.deactivations.inc({ station });
        return;
      case 'alarm':
        if (e.active) this.alarms.inc({ station, kind: e.alarm.kind });
        return;
      case 'rfid-security-failed':
        this.securityNotCleared.inc({ station });
        return;
    }
  }

  /**
   * The host-mode RFID readers' own counts (RfidReader.stats), read at scrape time. Labels: the
   * reader's device name and a closed set of kinds; never a UID or an item number.
   */
  private rfidCounters(): void {
    const stations = this.stations;
    const counter = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      fill: (inc: (labels: LabelValues<L>, v: number) => void, station: string, stats: RfidReaderStats, device: string) => void,
    ): void => {
      new Counter<L>({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const t of stations.values()) {
            const now = t.view.current();
            if (now === null) continue;
            for (const r of now.hardware.rfidReaders ?? []) fill((labels, v) => this.inc(labels, v), t.view.stationId, r.stats(), r.name);
          }
        },
      });
    };
    counter(`${PREFIX}rfid_tags_read_total`, 'Library tags read whose data names an item, by reader.', ['station', 'device'], (inc, station, s, device) =>
      inc({ station, device }, s.tagsRead),
    );
    counter(
      `${PREFIX}rfid_tags_unreadable_total`,
      'Library tags that could not be used, by reader and kind (blank, unknown, truncated, damaged, read-failed).',
      ['station', 'device', 'kind'],
      (inc, station, s, device) => {
        for (const kind of RFID_PROBLEMS) inc({ station, device, kind }, s.unreadable[kind]);
      },
    );
    counter(
      `${PREFIX}rfid_security_writes_total`,
      'Security-bit writes to tags, by reader and result (verified by reading back, or not).',
      ['station', 'device', 'result'],
      (inc, station, s, device) => {
        inc({ station, device, result: 'verified' }, s.securityWrites);
        inc({ station, device, result: 'failed' }, s.securityWriteFailures);
      },
    );
    counter(
      `${PREFIX}rfid_reader_reconnects_total`,
      'Times the reader line came back after it was lost, by reader.',
      ['station', 'device'],
      (inc, station, s, device) => inc({ station, device }, s.reconnects),
    );
    counter(
      `${PREFIX}rfid_answers_dropped_total`,
      'Frames from the reader dropped as no answer to the request in flight (another command or address, data that fits no answer), by reader.',
      ['station', 'device'],
      (inc, station, s, device) => inc({ station, device }, s.answersDropped),
    );
  }

  /** A gauge refilled from every station at each scrape. */
  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[], fill: Fill<L>): void {
    const stations = this.stations;
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        const set = (labels: LabelValues<L>, value: number): void => this.set(labels, value);
        for (const t of stations.values()) {
          const now = t.view.current();
          // A station being replaced (reload) is skipped for one scrape rather than shown stale.
          if (now !== null) fill(set, t.view.stationId, now, t);
        }
      },
    });
  }
}
