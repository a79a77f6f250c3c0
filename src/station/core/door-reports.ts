/**
 * No door change lost on the way to the server. A /state reports the doors as they are when it
 * goes out (a newer snapshot replaces an unsent one); so a door that opens and closes again while a
 * /state is in flight, or while the server cannot be reached, would never be reported: the server
 * would take a deposit's box as never opened and would not hear of a forced door. The soak measured
 * exactly that (door transitions made vs seen by the server).
 *
 * So a change that the doors as they are now would hide is kept as a snapshot and reported first,
 * in order. Rules (the snapshot "latest known" is the last queued one, else the one in flight, else
 * the last delivered one):
 *
 * | when                                   | what                                                      |
 * |----------------------------------------|-----------------------------------------------------------|
 * | a door is about to change, and its     | keep a snapshot of the doors as they are (before the       |
 * | present state is not the latest known  | change): that state has not been reported yet             |
 * | a /state goes out                      | it reports the oldest kept snapshot, else the doors now    |
 * | a /state is answered (any answer: the  | delivered; more to report (a kept snapshot, doors that     |
 * | server received it)                    | differ) -> /state owed at once                            |
 * | a /state stays unanswered              | if what it carried would be hidden by what goes next, keep |
 * |                                        | it again, first; it goes with the next heartbeat (never at |
 * |                                        | once: an unreachable server must not cause a storm)        |
 *
 * At most MAX_KEPT snapshots are kept (a server unreachable for hours while a door is forced again
 * and again); beyond that the oldest is dropped with an error log line.
 */
import type { BoxStatus } from '../../protocol/types.js';
import type { DoorReports, DoorSnapshot } from '../core-types.js';
import type { Ctx } from './context.js';

export const MAX_KEPT = 64;

function latestKnown(r: DoorReports): DoorSnapshot {
  return r.queued.at(-1) ?? r.sending ?? r.delivered;
}

function keep(ctx: Ctx, queued: readonly DoorSnapshot[]): readonly DoorSnapshot[] {
  if (queued.length <= MAX_KEPT) return queued;
  ctx.log('error', 'door changes not reported: the server has not answered for too long', { dropped: queued.length - MAX_KEPT });
  return queued.slice(-MAX_KEPT);
}

function differ(a: DoorSnapshot, b: DoorSnapshot): boolean {
  return Object.keys({ ...a, ...b }).some((id) => (a[id] ?? 'CLOSED') !== (b[id] ?? 'CLOSED'));
}

/** Call before a known box's door changes (s.boxes still holds the state it changes from). */
export function beforeDoorChange(ctx: Ctx, boxId: string): void {
  const { s } = ctx;
  const r = s.doorReports;
  const now: BoxStatus = s.boxes[boxId] ?? 'CLOSED';
  if ((latestKnown(r)[boxId] ?? 'CLOSED') === now) return;
  s.doorReports = { ...r, queued: keep(ctx, [...r.queued, { ...s.boxes }]) };
}

/** The doors the /state going out now reports (and remembers as in flight). */
export function takeReport(ctx: Ctx): DoorSnapshot {
  const { s, config } = ctx;
  const r = s.doorReports;
  const [oldest, ...rest] = r.queued;
  const snapshot: DoorSnapshot = oldest ?? Object.fromEntries(config.boxes.map((b) => [b.id, s.boxes[b.id] ?? 'CLOSED']));
  s.doorReports = { ...r, queued: rest, sending: snapshot };
  return snapshot;
}

/** The /state in flight was answered: the server has its doors. */
export function onStateDelivered(ctx: Ctx): void {
  const { s } = ctx;
  const r = s.doorReports;
  if (r.sending === null) return;
  s.doorReports = { ...r, delivered: r.sending, sending: null };
  if (r.queued.length > 0 || differ(r.sending, s.boxes)) s.stateOwed = true;
}

/** The /state in flight stayed unanswered: keep what it carried if what goes next would hide it. */
export function onStateLost(ctx: Ctx): void {
  const { s } = ctx;
  const r = s.doorReports;
  const lost = r.sending;
  if (lost === null) return;
  const next = r.queued[0] ?? s.boxes;
  const hidden = Object.keys(lost).some((id) => lost[id] !== r.delivered[id] && (next[id] ?? 'CLOSED') !== lost[id]);
  s.doorReports = { ...r, sending: null, queued: hidden ? keep(ctx, [lost, ...r.queued]) : r.queued };
}
