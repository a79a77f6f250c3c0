/**
 * Lasting error conditions (a device missing, service mode) and one-shot errors (a lock that failed)
 * that the next /state reports as `DOWN` with an errorMessage; and lasting problems that leave the
 * station serving (`degraded`: a kiosk screen not shown beside a tactile keypad), which it names
 * with st `UP`.
 *
 * Transitions here: fault set (message) -> fault changed -> fault cleared (null); the same for a
 * degraded problem; each marks a /state owed. A failed pulse and a reported problem add a one-shot error. Service mode (the
 * `service` fault) turned off while the tamper input is open raises the tamper alarm (alarms.ts).
 *
 * The USB watch's own health (`usb-watch`), judged by `security.unknownUsb`:
 *
 * | the USB watch                  | security.unknownUsb | result                                          |
 * |--------------------------------|---------------------|-------------------------------------------------|
 * | cannot see the bus (a problem) | out-of-service      | fault `usb-watch` (st DOWN with its words): a   |
 * |                                |                     | station that must stop for an unknown device    |
 * |                                |                     | does not serve while it cannot tell             |
 * | cannot see the bus (a problem) | report              | no fault: the watch's own warning and its       |
 * |                                |                     | health on the technician page; st stays UP      |
 * | sees the bus again             | either              | fault `usb-watch` cleared                       |
 */
import type { Ctx } from './context.js';
import { boxNumber, SERVICE_FAULT } from './context.js';
import { onServiceModeOff } from './alarms.js';

export function onFault(ctx: Ctx, key: string, message: string | null): void {
  const { s, log } = ctx;
  const current = s.faults[key];
  if (message === null) {
    if (current === undefined) return;
    const { [key]: _gone, ...rest } = s.faults;
    s.faults = rest;
    log('info', 'fault cleared', { fault: key });
    if (key === SERVICE_FAULT) onServiceModeOff(ctx);
  } else {
    if (current === message) return;
    s.faults = { ...s.faults, [key]: message };
    log('warn', 'fault', { fault: key, message });
  }
  s.stateOwed = true;
}

/** A lasting problem that leaves the station serving: named by every /state while it lasts, st UP. */
export function onDegraded(ctx: Ctx, key: string, message: string | null): void {
  const { s, log } = ctx;
  const current = s.degraded[key];
  if (message === null) {
    if (current === undefined) return;
    const { [key]: _gone, ...rest } = s.degraded;
    s.degraded = rest;
    log('info', 'problem cleared (the station served through it)', { problem: key });
  } else {
    if (current === message) return;
    s.degraded = { ...s.degraded, [key]: message };
    log('warn', 'problem (the station serves on)', { problem: key, message });
  }
  s.stateOwed = true;
}

/** A one-shot problem (the journal could not be written, ...): reported once by the next /state. */
export function onProblem(ctx: Ctx, message: string): void {
  const { s, log } = ctx;
  log('error', 'problem reported to the server', { problem: message });
  if (!s.pendingErrors.includes(message)) s.pendingErrors = [...s.pendingErrors, message];
  s.stateOwed = true;
}

export function onPulseFailed(ctx: Ctx, boxId: string, message: string): void {
  const { s, config, log } = ctx;
  log('error', 'lock pulse failed', { boxId, box: boxNumber(config, boxId), error: message });
  s.pendingErrors = [...s.pendingErrors, `box ${boxNumber(config, boxId)} lock failed: ${message}`];
  s.stateOwed = true;
}

/** The fault key of a USB watch that cannot see the bus (out-of-service only). */
export const USB_WATCH_FAULT = 'usb-watch';

/** The USB watch's own health, judged by `security.unknownUsb` (the table above). */
export function onUsbWatch(ctx: Ctx, problem: string | null): void {
  const outOfServiceWanted = ctx.config.security?.unknownUsb === 'out-of-service';
  onFault(ctx, USB_WATCH_FAULT, outOfServiceWanted ? problem : null);
}
