/**
 * Library tags on host-mode RFID readers: what is a report, and the deposit's security bit.
 *
 * A reader reports its whole field whenever it changes (src/devices/rfid/reader.ts); this part
 * decides. An item is keyed by its Primary Item Identifier (the parts of a set share it), or by
 * the tag's UID when the reader sends UIDs or the tag is unreadable. A key is acted on once, when
 * a tag of it arrives, and again only after every tag of it has left the field — presence, not
 * time: an item lifted and laid down again is a new arrival however soon (the double-read window
 * is the line scanners'). An item that arrives while the station is not free (an event in flight,
 * a box open, starting) is refused like a scan, and reported once the station is free if it still
 * lies there alone: the librarian never has to lay it down twice.
 *
 * Transitions here:
 * | when                                   | input                                        | effect                                               |
 * |----------------------------------------|----------------------------------------------|------------------------------------------------------|
 * | any                                    | rfid-field, an unreadable tag arrived        | overlay rfidUnreadable, `refused`, warn log (why)    |
 * | any                                    | rfid-field, two different items in the field | overlay rfidOneItem, `refused`; none reported while  |
 * |                                        |                                              | both lie there (the one left alone then is)          |
 * | any                                    | rfid-field, one item of N parts, fewer lie   | nothing sent (sets: require-all); the idle screen    |
 * |                                        | there                                        | counts the missing parts                             |
 * | any                                    | rfid-field, one item, all parts (or the      | as a scan (input.ts): /item-identify RFID <item id   |
 * |                                        | first with sets: report-first)               | or UID>, refused by the same rules; security owed    |
 * | not free (input.ts stationFree)        | rfid-field, that item refused                | the item waits (not done): refused sound and screen  |
 * | free again, an item waiting            | any input (after a /state owed goes out)     | the item, if it still lies there alone, reported as  |
 * |                                        |                                              | above, once                                          |
 * | any                                    | rfid-field, a waiting item's tags gone       | it no longer waits                                   |
 * | /item-identify of an RFID item in      | answered box-open (accepted)                 | write-security (after the pulse), security-window    |
 * | flight, security on                    |                                              | timer                                                |
 * | security job                           | security-result, every tag verified          | done: info log, timers stopped                       |
 * | security job                           | security-result, a tag not verified          | warn log, `refused`, "put the item back on the        |
 * |                                        |                                              | reader" on screen, security-retry timer              |
 * | security job, not writing              | rfid-field shows a failed tag again, or      | write-security for the failed tags in the field      |
 * |                                        | security-retry with one in the field         | (a returned tag is never reported as a new item)     |
 * | security job                           | security-window timer                        | error log, next /state's errorMessage (DOWN once),   |
 * |                                        |                                              | journal, technician status, overlay rfidSecurityFailed |
 *
 * No write happens without the server's box-open for that deposit: the deposit goes on whatever
 * the write does (the server decided); the write is what lets the item through the library's exit
 * gates once picked up.
 */
import type { RfidTag } from '../../devices/types.js';
import { maskIdentifier } from '../../mask.js';
import type { ServerAnswer } from '../../protocol/types.js';
import type { CoreConfig, RfidField, RfidState, SecurityFailure, SecurityOwed } from '../core-types.js';
import { commandProblem } from './answers.js';
import type { Ctx } from './context.js';
import { sound } from './context.js';
import { showOverlay } from './display.js';
import { onScan, stationFree } from './input.js';
import { handlingNote, missingParts, RFID_DEFAULTS, settings } from './rfid-view.js';

export { RFID_DEFAULTS };

const MAX_FAILURES_KEPT = 10;
const EMPTY_FIELD: RfidField = { tags: [], seen: [], done: [], waiting: null, send: 'item-id' };

export const INITIAL_RFID: RfidState = { fields: {}, owed: null, handling: null, job: null, failures: [] };

function keyOf(t: RfidTag, send: 'item-id' | 'uid'): string {
  return t.data.kind === 'item' && send === 'item-id' ? `item:${t.data.itemId}` : `uid:${t.uid}`;
}

/** What the station sends for this tag. */
function valueOf(t: RfidTag, send: 'item-id' | 'uid'): string {
  return t.data.kind === 'item' && send === 'item-id' ? t.data.itemId : t.uid;
}

function readable(t: RfidTag): boolean {
  return t.data.kind !== 'unreadable';
}

export function onRfidField(ctx: Ctx, reader: string, send: 'item-id' | 'uid', tags: readonly RfidTag[], at: number): void {
  const { s, config, log } = ctx;
  const prev = s.rfid.fields[reader] ?? EMPTY_FIELD;
  const present = new Set(tags.map((t) => t.uid));
  const keys = new Set(tags.map((t) => keyOf(t, send)));
  const seenBefore = prev.seen.filter((u) => present.has(u));
  const fresh = tags.filter((t) => !seenBefore.includes(t.uid));
  let done = prev.done.filter((k) => keys.has(k));
  const waiting = prev.waiting !== null && keys.has(prev.waiting) ? prev.waiting : null;
  const field = (): RfidField => ({ tags, seen: [...seenBefore, ...fresh.map((t) => t.uid)], done, waiting, send });
  setField(ctx, reader, field());
  if (fresh.length === 0) {
    // The others taken away: an item that waited beside them is reported now.
    if (prev.tags.length > tags.length) reportAlone(ctx, reader, send, tags, done, at);
    return;
  }

  // The deposit's tags coming back for their security bit: written again, never a new report.
  const job = s.rfid.job;
  if (job !== null && job.reader === reader) {
    const back = fresh.filter((t) => job.remaining.includes(t.uid));
    if (back.length > 0) {
      done = [...new Set([...done, ...tags.filter((t) => job.uids.includes(t.uid)).map((t) => keyOf(t, send))])];
      setField(ctx, reader, field());
      if (!job.writing) writeAgain(ctx);
      if (fresh.every((t) => job.uids.includes(t.uid))) return;
    }
  }

  const sec = settings(config).security;
  for (const t of fresh) {
    // A tag with neither of the library's values: another library's item, or a config that names the wrong ones.
    if (sec.kind === 'afi' && t.afi !== null && t.afi !== sec.secured && t.afi !== sec.unsecured && t.data.kind === 'item')
      log('warn', "RFID tag's AFI is neither the configured secured nor unsecured value", {
        reader,
        uid: maskIdentifier(t.uid),
        afi: t.afi,
        secured: sec.secured,
        unsecured: sec.unsecured,
      });
  }
  for (const t of fresh) {
    if (t.data.kind !== 'unreadable') continue;
    log('warn', 'RFID tag cannot be read', { reader, uid: maskIdentifier(t.uid), problem: t.data.problem, detail: t.data.detail });
    sound(ctx, 'refused');
    showOverlay(ctx, config.messages.rfidUnreadable);
    done = [...new Set([...done, keyOf(t, send)])];
  }
  setField(ctx, reader, field());
  if (!fresh.some(readable)) return;

  reportAlone(ctx, reader, send, tags, done, at, true);
}

/** After any input: an item that waited for the station to be free is reported now, once. */
export function reportWaiting(ctx: Ctx): void {
  if (!stationFree(ctx)) return;
  for (const [reader, f] of Object.entries(ctx.s.rfid.fields)) {
    if (f.waiting === null) continue;
    setField(ctx, reader, { ...f, waiting: null });
    ctx.log('info', 'RFID: an item that arrived while the station was busy still lies there: reported now', { reader });
    // The time is a barcode's double-read window only (input.ts): an RFID report does not use it.
    reportAlone(ctx, reader, f.send, f.tags, f.done, 0);
    if (!stationFree(ctx)) return;
  }
}

/**
 * The one item on the reader, reported (as a scan) unless done already or a set still incomplete;
 * with two or more items nothing is reported, and `warn` says so on the display.
 */
function reportAlone(
  ctx: Ctx,
  reader: string,
  send: 'item-id' | 'uid',
  tags: readonly RfidTag[],
  doneBefore: readonly string[],
  at: number,
  warn = false,
): void {
  const { s, config, log } = ctx;
  let done = doneBefore;
  const field = (): RfidField => ({ ...(s.rfid.fields[reader] ?? EMPTY_FIELD), done });
  const itemKeys = [...new Set(tags.filter(readable).map((t) => keyOf(t, send)))];
  if (itemKeys.length > 1) {
    // Not marked done: once the others are taken away, the one left is reported (an item lifted
    // off the reader counts as gone only after a few inventories, so a quick swap passes through here).
    if (!warn) return;
    log('info', 'RFID: more than one item on the reader, none reported', { reader, items: itemKeys.length });
    sound(ctx, 'refused');
    showOverlay(ctx, config.messages.rfidOneItem);
    return;
  }
  const key = itemKeys[0];
  if (key === undefined || done.includes(key)) return;
  const parts = tags.filter((t) => keyOf(t, send) === key);
  const first = parts[0];
  if (first === undefined) return;
  if (send === 'item-id' && settings(config).sets === 'require-all') {
    const missing = missingParts(parts);
    if (missing !== null && missing.missing > 0) {
      log('info', 'RFID: item of several parts incomplete on the reader', { reader, parts: missing.total, missing: missing.missing });
      return;
    }
  }
  done = [...done, key];
  setField(ctx, reader, field());
  const outcome = onScan(ctx, 'RFID', valueOf(first, send), at);
  if (outcome === 'sent') s.rfid = { ...s.rfid, handling: handlingNote(parts) };
  if (outcome === 'refused') {
    done = done.filter((k) => k !== key);
    setField(ctx, reader, { ...field(), waiting: key });
    return;
  }
  if (outcome === 'sent' && settings(config).security.kind !== 'off') {
    s.rfid = { ...s.rfid, owed: { reader, itemId: valueOf(first, send), uids: parts.map((t) => t.uid) } };
  }
}

function setField(ctx: Ctx, reader: string, field: RfidField): void {
  ctx.s.rfid = { ...ctx.s.rfid, fields: { ...ctx.s.rfid.fields, [reader]: field } };
}

// --- the security bit ---------------------------------------------------------------------------

/** After the answer to an /item-identify: a box-open for an RFID deposit starts its security write. */
export function onIdentifyAnswered(ctx: Ctx, answer: ServerAnswer): void {
  const owed = ctx.s.rfid.owed;
  if (owed === null) return;
  ctx.s.rfid = { ...ctx.s.rfid, owed: null };
  if (answer.kind !== 'command' || answer.command.type !== 'box-open') return;
  if (commandProblem(ctx.config, 'item-identify', answer.command) !== null) return;
  startSecurity(ctx, owed);
}

/** The /item-identify went unanswered: nothing is owed (no box opened, no write). */
export function onIdentifyUnanswered(ctx: Ctx): void {
  if (ctx.s.rfid.owed !== null) ctx.s.rfid = { ...ctx.s.rfid, owed: null };
}

function startSecurity(ctx: Ctx, owed: SecurityOwed): void {
  const { config, fx, log } = ctx;
  const rs = settings(config);
  if (ctx.s.rfid.job !== null) fail(ctx, 'superseded by the next deposit before it was verified');
  ctx.s.rfid = { ...ctx.s.rfid, job: { ...owed, remaining: owed.uids, writing: true, lastReason: null } };
  log('info', 'RFID: clearing the security bit of the deposited item', { reader: owed.reader, itemId: maskIdentifier(owed.itemId), tags: owed.uids.length });
  fx.push({ type: 'write-security', reader: owed.reader, uids: owed.uids, write: writeOf(config) });
  fx.push({ type: 'start-timer', timer: 'security-window', ms: rs.securityWindowMs });
}

function writeOf(config: CoreConfig): { kind: 'afi'; value: number } | { kind: 'eas'; enabled: boolean } {
  const sec = settings(config).security;
  return sec.kind === 'afi' ? { kind: 'afi', value: sec.unsecured } : { kind: 'eas', enabled: false };
}

export function onSecurityResult(ctx: Ctx, reader: string, results: readonly { uid: string; ok: boolean; reason?: string }[]): void {
  const { s, config, fx, log } = ctx;
  const job = s.rfid.job;
  if (job === null || job.reader !== reader) {
    log('debug', 'RFID security result with no write waiting for it', { reader });
    return;
  }
  const verified = new Set(results.filter((r) => r.ok).map((r) => r.uid));
  const remaining = job.remaining.filter((u) => !verified.has(u));
  if (remaining.length === 0) {
    log('info', 'RFID: security bit cleared and verified', { reader, itemId: maskIdentifier(job.itemId), tags: job.uids.length });
    s.rfid = { ...s.rfid, job: null };
    fx.push({ type: 'stop-timer', timer: 'security-window' }, { type: 'stop-timer', timer: 'security-retry' });
    return;
  }
  const reasons = results.filter((r) => !r.ok && remaining.includes(r.uid)).map((r) => `${maskIdentifier(r.uid)}: ${r.reason ?? 'not verified'}`);
  const lastReason = reasons.join('; ') || job.lastReason || 'not verified';
  log('warn', 'RFID: security bit not verified, asking for the item back on the reader', {
    reader,
    itemId: maskIdentifier(job.itemId),
    remaining: remaining.length,
    reasons,
  });
  if (job.lastReason === null) sound(ctx, 'refused');
  s.rfid = { ...s.rfid, job: { ...job, remaining, writing: false, lastReason } };
  fx.push({ type: 'start-timer', timer: 'security-retry', ms: settings(config).securityRetryMs });
}

export function onSecurityRetryTimer(ctx: Ctx): void {
  const job = ctx.s.rfid.job;
  if (job === null || job.writing) return;
  if (!writeAgain(ctx)) ctx.fx.push({ type: 'start-timer', timer: 'security-retry', ms: settings(ctx.config).securityRetryMs });
}

/** Write again to the failed tags that lie on the reader now; false when none does. */
function writeAgain(ctx: Ctx): boolean {
  const { s, config, fx } = ctx;
  const job = s.rfid.job;
  if (job === null) return false;
  const field = s.rfid.fields[job.reader] ?? EMPTY_FIELD;
  const here = job.remaining.filter((u) => field.tags.some((t) => t.uid === u));
  if (here.length === 0) return false;
  s.rfid = { ...s.rfid, job: { ...job, writing: true } };
  fx.push({ type: 'stop-timer', timer: 'security-retry' });
  fx.push({ type: 'write-security', reader: job.reader, uids: here, write: writeOf(config) });
  return true;
}

export function onSecurityWindowTimer(ctx: Ctx): void {
  if (ctx.s.rfid.job === null) return;
  fail(ctx, null);
}

/** The security bit could not be cleared: told to the librarian, the server, the journal and the technician. */
function fail(ctx: Ctx, why: string | null): void {
  const { s, config, fx, log } = ctx;
  const job = s.rfid.job;
  if (job === null) return;
  const reason = why ?? `not verified within ${settings(config).securityWindowMs} ms: ${job.lastReason ?? 'no answer from the reader'}`;
  const failure: SecurityFailure = { reader: job.reader, itemId: job.itemId, uids: job.remaining, reason };
  log('error', 'RFID: security bit of a deposited item not cleared; the exit gates may alarm', {
    ...failure,
    itemId: maskIdentifier(failure.itemId),
    uids: failure.uids.map(maskIdentifier),
  });
  s.pendingErrors = [...s.pendingErrors, `RFID security bit not cleared on item ${job.itemId} (${job.remaining.length} of ${job.uids.length} tags): ${reason}`];
  s.stateOwed = true;
  s.rfid = { ...s.rfid, job: null, failures: [...s.rfid.failures, failure].slice(-MAX_FAILURES_KEPT) };
  fx.push({ type: 'stop-timer', timer: 'security-window' }, { type: 'stop-timer', timer: 'security-retry' });
  fx.push({ type: 'journal-security-failure', failure });
  sound(ctx, 'refused');
  showOverlay(ctx, config.messages.rfidSecurityFailed);
}
