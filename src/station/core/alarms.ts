/**
 * Alarms the station raises on its own, in Matter DoorLock's vocabulary: a door forced open
 * (DoorForcedOpen), a door left open (DoorAjar), the cabinet's tamper input, and the keypad locked
 * after wrong PINs (WrongCodeEntryLimit, raised by pin-throttle.ts). An alarm is held in
 * `CoreState.alarms` while its condition lasts; every alarm in force is named in /state's
 * errorMessage (outbound.ts), reaches the technician port through the runtime's `alarm` event, and
 * sounds the buzzer.
 *
 * Transitions here:
 * | condition                                   | input            | effect                                             |
 * |---------------------------------------------|------------------|----------------------------------------------------|
 * | door OPEN outside every door-open window    | door (doors.ts)  | forced-open raised: error log, /state at once,     |
 * |                                             |                  | alarm sound                                        |
 * | door OPEN (any opening), or OPEN at start   | door, start      | its door-ajar timer started (doorAjarMs)           |
 * | door still OPEN                             | door-ajar timer  | door-ajar raised: warn log, /state at once,        |
 * |                                             |                  | reminder sound, ajar-reminder timer                |
 * | some door ajar                              | ajar-reminder    | reminder sound, ajar-reminder timer again          |
 * | door CLOSED                                 | door             | its forced-open and door-ajar cleared, its timer   |
 * |                                             |                  | stopped, /state owed                               |
 * | tamper opens, service mode off              | tamper           | tamper raised: st DOWN "tamper", customer input    |
 * |                                             |                  | refused (input.ts), alarm sound                    |
 * | tamper opens, service mode on               | tamper           | expected (a technician's own opening): no alarm    |
 * | tamper closes                               | tamper           | tamper cleared                                     |
 * | tamper open, service mode turned off        | fault            | tamper raised                                      |
 * | unknown USB devices plugged in (1 or more), | unknown-usb      | unknown-usb raised: error log, st DOWN, customer   |
 * | security.unknownUsb out-of-service          |                  | input refused, out of service shown, alarm sound   |
 * | none left, or unknownUsb report             | unknown-usb      | unknown-usb cleared (report: the USB watch's own   |
 * |                                             |                  | warning, the metric and the technician page only)  |
 * (The USB watch's own health, judged by the same setting, is a fault: faults.ts.)
 */
import type { Alarm, AlarmKind } from '../core-types.js';
import type { Ctx } from './context.js';
import { boxNumber, doorAjarTimer, inServiceMode, sound, withdrawLimit } from './context.js';
import { startLimit } from './time-to-act.js';

/** Alarm kinds that stop service (st DOWN, customer input refused); the others leave the station UP. */
export const BLOCKING_ALARMS: ReadonlySet<AlarmKind> = new Set<AlarmKind>(['tamper', 'unknown-usb']);

/** A station-wide alarm that takes the station out of service is in force (the screen says so, input is refused). */
export function outOfService(s: { readonly alarms: readonly Alarm[] }): boolean {
  return s.alarms.some((a) => a.boxId === null && BLOCKING_ALARMS.has(a.kind));
}

export function hasAlarm(ctx: Ctx, kind: AlarmKind, boxId: string | null = null): boolean {
  return ctx.s.alarms.some((a) => a.kind === kind && a.boxId === boxId);
}

/** Raise an alarm unless the same one is in force; /state names it at once. */
export function raiseAlarm(ctx: Ctx, alarm: Alarm): boolean {
  if (hasAlarm(ctx, alarm.kind, alarm.boxId)) return false;
  ctx.s.alarms = [...ctx.s.alarms, alarm];
  ctx.s.stateOwed = true;
  return true;
}

export function clearAlarm(ctx: Ctx, kind: AlarmKind, boxId: string | null = null): boolean {
  const kept = ctx.s.alarms.filter((a) => !(a.kind === kind && a.boxId === boxId));
  if (kept.length === ctx.s.alarms.length) return false;
  ctx.s.alarms = kept;
  ctx.s.stateOwed = true;
  return true;
}

/** At start: a door that is already open gets its door-ajar timer like any opening. */
export function watchOpenDoorsAtStart(ctx: Ctx): void {
  for (const b of ctx.config.boxes) {
    if (ctx.s.boxes[b.id] === 'OPEN') startLimit(ctx, doorAjarTimer(b.id));
  }
}

/** A door opened with no command within its door-open window (doors.ts decided which). */
export function onForcedOpen(ctx: Ctx, boxId: string): void {
  const n = boxNumber(ctx.config, boxId);
  ctx.log('error', `box ${n} forced open: opened without a command`, { boxId, box: n, outcome: 'opened-without-command' });
  if (raiseAlarm(ctx, { kind: 'forced-open', boxId, detail: `box ${n} forced open` })) sound(ctx, 'alarm');
}

/** Any opening starts the door-ajar timer (a patron's time limit: warned of before, extendable). */
export function onDoorOpened(ctx: Ctx, boxId: string): void {
  startLimit(ctx, doorAjarTimer(boxId));
}

/** A closed door ends both of its alarms. */
export function onDoorClosed(ctx: Ctx, boxId: string): void {
  ctx.fx.push({ type: 'stop-timer', timer: doorAjarTimer(boxId) });
  withdrawLimit(ctx, doorAjarTimer(boxId));
  const n = boxNumber(ctx.config, boxId);
  if (clearAlarm(ctx, 'forced-open', boxId)) ctx.log('info', `alarm cleared: box ${n} forced open (door closed)`, { boxId, alarm: 'forced-open' });
  if (clearAlarm(ctx, 'door-ajar', boxId)) ctx.log('info', `alarm cleared: box ${n} ajar (door closed)`, { boxId, alarm: 'door-ajar' });
}

export function onDoorAjarTimer(ctx: Ctx, boxId: string): void {
  const { s, config, fx, log } = ctx;
  if (s.boxes[boxId] !== 'OPEN') return;
  const n = boxNumber(config, boxId);
  const seconds = Math.round(config.timing.doorAjarMs / 1000);
  log('warn', `box ${n} ajar: open for ${seconds} s`, { boxId, box: n, ms: config.timing.doorAjarMs });
  if (!raiseAlarm(ctx, { kind: 'door-ajar', boxId, detail: `box ${n} open for ${seconds} s` })) return;
  sound(ctx, 'reminder');
  fx.push({ type: 'start-timer', timer: 'ajar-reminder', ms: config.timing.doorAjarReminderMs });
}

export function onAjarReminderTimer(ctx: Ctx): void {
  if (!ctx.s.alarms.some((a) => a.kind === 'door-ajar')) return;
  sound(ctx, 'reminder');
  ctx.fx.push({ type: 'start-timer', timer: 'ajar-reminder', ms: ctx.config.timing.doorAjarReminderMs });
}

export function onTamper(ctx: Ctx, open: boolean): void {
  const { s, log } = ctx;
  if (s.tamperOpen === open) return;
  s.tamperOpen = open;
  if (!open) {
    if (clearAlarm(ctx, 'tamper')) log('info', 'alarm cleared: tamper input closed');
    else log('info', 'tamper input closed');
    return;
  }
  if (inServiceMode(s)) {
    log('info', 'tamper input open in service mode: a technician at work, no alarm');
    return;
  }
  raiseTamper(ctx);
}

/** Service mode went off: a tamper input still open is an alarm from now on. */
export function onServiceModeOff(ctx: Ctx): void {
  if (ctx.s.tamperOpen) raiseTamper(ctx);
}

function raiseTamper(ctx: Ctx): void {
  ctx.log('error', 'tamper alarm: cabinet or service door open without service mode; customer input refused');
  if (raiseAlarm(ctx, { kind: 'tamper', boxId: null, detail: 'tamper' })) sound(ctx, 'alarm');
}

/**
 * The USB devices the kernel keeps out, counted. Out of service while any is plugged in, when the
 * config says so: a device no one expected may be someone working on the station.
 */
export function onUnknownUsb(ctx: Ctx, present: number): void {
  const outOfServiceWanted = ctx.config.security?.unknownUsb === 'out-of-service';
  if (present > 0 && outOfServiceWanted) {
    if (raiseAlarm(ctx, { kind: 'unknown-usb', boxId: null, detail: `unknown USB device (${present})` })) {
      ctx.log('error', `unknown USB device plugged in: customer input refused until it is removed (security.unknownUsb out-of-service)`, { present });
      sound(ctx, 'alarm');
    }
    return;
  }
  if (clearAlarm(ctx, 'unknown-usb')) ctx.log('info', 'alarm cleared: no unknown USB device plugged in');
}
