/**
 * The core's RFID rules (src/station/core/rfid.ts), transition by transition: one report per item
 * until it leaves, one item at a time, sets, unreadable tags, UIDs; and the security bit — only
 * after the server's box-open for that deposit, verified, retried with "put the item back", a final
 * failure told to the journal, the technician and the next /state, the deposit going on regardless.
 */
import { describe, expect, it } from 'vitest';
import type { RfidTag } from '../../src/devices/types.js';
import type { CoreConfig, Effect, Input } from '../../src/station/core-types.js';
import {
  answered,
  B1,
  cmd,
  coreConfig,
  displays,
  idleStepper,
  logs,
  pinKeys,
  sends,
  sounds,
  states,
  timer,
  timersStarted,
  waitForInput,
} from '../support/core-driver.js';

const AFI = { kind: 'afi', secured: 0x07, unsecured: 0xc2 } as const;
const config = (rfid: Partial<NonNullable<CoreConfig['rfid']>> = {}): CoreConfig => ({
  ...coreConfig(),
  rfid: { sets: 'require-all', security: { kind: 'off' }, securityWindowMs: 30_000, securityRetryMs: 1_000, ...rfid },
});

const item = (uid: string, itemId: string, set: { part: number; of: number } | null = null, mediaFormat: number | null = null): RfidTag => ({
  uid,
  afi: 0x07,
  data: { kind: 'item', model: 'iso28560-3', itemId, set, owner: 'DK-710100', mediaFormat },
});
const blank = (uid: string): RfidTag => ({ uid, afi: 0, data: { kind: 'unreadable', problem: 'blank', detail: 'no data written' } });
let clock = 10_000;
const field = (...tags: RfidTag[]): Input => ({ type: 'rfid-field', reader: 'R', send: 'item-id', tags, at: (clock += 5_000) });
const uidField = (...tags: RfidTag[]): Input => ({ type: 'rfid-field', reader: 'R', send: 'uid', tags, at: (clock += 5_000) });
const identified = (fx: readonly Effect[]) => sends(fx).flatMap((r) => (r.endpoint === 'item-identify' ? [r.identifierValue] : []));
const writes = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'write-security' ? [e] : []));
const boxOpen = answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: ['Box 1'] }));

describe('what is a report', () => {
  it('a tag on the reader is reported once, with its item number as RFID; again only after it left', () => {
    const st = idleStepper(config());
    const a = item('E004010000000001', '31234000000033');
    const fx = st.feed(field(a));
    expect(sends(fx)).toEqual([{ endpoint: 'item-identify', identifierType: 'RFID', identifierValue: '31234000000033' }]);
    expect(sounds(fx)).toEqual(['accepted']);
    st.feed(answered('item-identify', cmd({ type: 'wait-for-input', displayMessages: [] })));
    expect(identified(st.feed(field(a), field(a, blank('E0040100000000FF')), field(a)))).toEqual([]);
    st.take();
    expect(identified(st.feed(field(), field(a)))).toEqual(['31234000000033']);
  });

  it('two different items at once: one item at a time, nothing reported while both lie there; the one left alone then is', () => {
    const st = idleStepper(config());
    const fx = st.feed(field(item('E004010000000001', 'A1'), item('E004010000000002', 'B2')));
    expect(sends(fx)).toEqual([]);
    expect(sounds(fx)).toEqual(['refused']);
    expect(displays(fx).at(-1)).toEqual(st.config.messages.rfidOneItem);
    expect(identified(st.feed(field(item('E004010000000001', 'A1'), item('E004010000000002', 'B2'))))).toEqual([]);
    // One taken away: the other, never reported, is now.
    expect(identified(st.feed(field(item('E004010000000002', 'B2'))))).toEqual(['B2']);
  });

  it('a second item laid beside one already reported waits (one item at a time) until the first is taken away', () => {
    const st = idleStepper(config());
    const a = item('E004010000000001', 'A1');
    const b = item('E004010000000002', 'B2');
    st.feed(field(a), answered('item-identify', cmd({ type: 'wait-for-input', displayMessages: [] })));
    st.take();
    const fx = st.feed(field(a, b));
    expect(sends(fx)).toEqual([]);
    expect(displays(fx).at(-1)).toEqual(st.config.messages.rfidOneItem);
    expect(identified(st.feed(field(b)))).toEqual(['B2']);
  });

  it('a set of three, require-all: nothing until all three lie there, the idle screen counting the missing; then one report', () => {
    const st = idleStepper(config());
    const part = (n: number) => item(`E00401000000000${n}`, 'SET-7', { part: n, of: 3 });
    const fx = st.feed(field(part(1)), field(part(1), part(2)));
    expect(sends(fx)).toEqual([]);
    expect(displays(fx).at(-1)).toEqual(['Item of 3 parts:', '1 missing,', 'place all parts']);
    expect(identified(st.feed(field(part(1), part(2), part(3))))).toEqual(['SET-7']);
    expect(identified(st.feed(field(part(1), part(3)), field(part(1), part(2), part(3))))).toEqual([]);
  });

  it('report-first: a set is reported with its first part, its other parts are the same item', () => {
    const st = idleStepper(config({ sets: 'report-first' }));
    const part = (n: number) => item(`E00401000000000${n}`, 'SET-7', { part: n, of: 2 });
    expect(identified(st.feed(field(part(2))))).toEqual(['SET-7']);
    st.feed(answered('item-identify', cmd({ type: 'wait-for-input', displayMessages: [] })));
    expect(identified(st.feed(field(part(2), part(1))))).toEqual([]);
  });

  it('an unreadable tag asks for the barcode and logs why; nothing is sent', () => {
    const st = idleStepper(config());
    const fx = st.feed(field(blank('E004010000000009')));
    expect(sends(fx)).toEqual([]);
    expect(sounds(fx)).toEqual(['refused']);
    expect(displays(fx).at(-1)).toEqual(st.config.messages.rfidUnreadable);
    expect(logs(fx)).toContainEqual({ level: 'warn', msg: 'RFID tag cannot be read' });
  });

  it('send "uid": the UID is the identifier; two tags are two items', () => {
    const st = idleStepper(config());
    const u = (uid: string): RfidTag => ({ uid, afi: null, data: { kind: 'uid-only' } });
    expect(identified(st.feed(uidField(u('E004010000000001'))))).toEqual(['E004010000000001']);
    const st2 = idleStepper(config());
    expect(sends(st2.feed(uidField(u('E004010000000001'), u('E004010000000002'))))).toEqual([]);
  });

  it('refused while an event is in flight, then reported once the station is free, once — never laid down twice', () => {
    const st = idleStepper(config());
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: '123', at: 1 });
    st.take();
    const a = item('E004010000000001', 'A1');
    const fx = st.feed(field(a));
    expect(sends(fx)).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'scan refused: /item-identify in flight' });
    expect(st.state.rfid.fields['R']?.waiting).toBe('item:A1');
    expect(identified(st.feed(answered('item-identify', waitForInput)))).toEqual(['A1']);
    st.feed(answered('item-identify', waitForInput));
    expect(identified(st.feed(field(a), timer('heartbeat'), answered('state', waitForInput)))).toEqual([]);
  });

  it('laid while a box is open: reported after the door closed and the /state that says so was answered', () => {
    const st = idleStepper(config());
    const a = item('E004010000000001', 'A1');
    const b = item('E004010000000002', 'B2');
    st.feed(field(a), boxOpen);
    st.feed(field(a, b));
    st.feed(field(b));
    expect(identified(st.take())).toEqual(['A1']);
    const closed = st.feed({ type: 'door', boxId: B1, state: 'OPEN' }, { type: 'door', boxId: B1, state: 'CLOSED' });
    expect(identified(closed)).toEqual([]);
    expect(states(closed)).toHaveLength(1);
    // The OPEN report answered; the CLOSED one goes out, the item still waits for it.
    const open = st.feed(answered('state', waitForInput));
    expect([states(open).length, identified(open)]).toEqual([1, []]);
    expect(identified(st.feed(answered('state', waitForInput)))).toEqual(['B2']);
    expect(identified(st.feed(answered('item-identify', waitForInput), field(b), timer('heartbeat'), answered('state', waitForInput)))).toEqual([]);
  });

  it('a waiting item taken away before the station is free is not reported', () => {
    const st = idleStepper(config());
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: '123', at: 1 });
    const a = item('E004010000000001', 'A1');
    st.feed(field(a), field());
    st.take();
    expect(identified(st.feed(answered('item-identify', waitForInput)))).toEqual([]);
    expect(st.state.rfid.fields['R']?.waiting).toBeNull();
  });

  it("lifted and laid down again within the barcode's double-read window: a new arrival, reported again", () => {
    const st = idleStepper(config());
    const a = item('E004010000000001', 'A1');
    const at = (ms: number): Input => ({ type: 'rfid-field', reader: 'R', send: 'item-id', tags: [a], at: ms });
    expect(identified(st.feed(at(100_000)))).toEqual(['A1']);
    st.feed(answered('item-identify', waitForInput));
    expect(st.config.timing.duplicateScanWindowMs).toBeGreaterThan(600);
    st.feed({ type: 'rfid-field', reader: 'R', send: 'item-id', tags: [], at: 100_300 });
    expect(identified(st.feed(at(100_600)))).toEqual(['A1']);
    // A barcode scanner's double read is still dropped.
    st.feed(answered('item-identify', waitForInput));
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: '42', at: 200_000 }, answered('item-identify', waitForInput));
    expect(sends(st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: '42', at: 200_100 }))).toEqual([]);
  });
});

describe("the item's handling note (media format) on the deposit's screens", () => {
  const door = (state: 'OPEN' | 'CLOSED'): Input => ({ type: 'door', boxId: B1, state });

  it('careful handling: under "please wait", the box\'s opening and closing screens; gone once the station waits for input', () => {
    const st = idleStepper(config());
    const care = st.config.messages.rfidCarefulHandling;
    expect(displays(st.feed(field(item('E004010000000001', 'A1', null, 5)))).at(-1)).toEqual([...st.config.messages.busy, care]);
    expect(displays(st.feed(boxOpen)).at(-1)).toEqual(['Box 1', care]);
    st.feed(door('OPEN'));
    const closing = st.feed(answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Close box 1'], cancellable: false })));
    expect(displays(closing).at(-1)).toEqual(['Close box 1', care]);
    st.feed(door('CLOSED'));
    expect(displays(st.feed(answered('state', waitForInput))).at(-1)).toEqual(st.config.messages.prompt);
    expect(st.state.rfid.handling).toBeNull();
  });

  it('small item; a set whose parts disagree says careful handling; an item without either says nothing', () => {
    const small = idleStepper(config());
    expect(
      displays(small.feed(field(item('E004010000000001', 'A1', null, 6))))
        .at(-1)
        ?.at(-1),
    ).toEqual(small.config.messages.rfidSmallItem);
    const set = idleStepper(config());
    const parts = [item('E004010000000001', 'S1', { part: 1, of: 2 }, 6), item('E004010000000002', 'S1', { part: 2, of: 2 }, 5)];
    expect(
      displays(set.feed(field(...parts)))
        .at(-1)
        ?.at(-1),
    ).toEqual(set.config.messages.rfidCarefulHandling);
    const book = idleStepper(config());
    expect(displays(book.feed(field(item('E004010000000001', 'B1', null, 1)))).at(-1)).toEqual(book.config.messages.busy);
  });

  it('not carried over: a refused deposit, then a PIN pickup of the same box shows no note', () => {
    const st = idleStepper(config());
    st.feed(field(item('E004010000000001', 'A1', null, 5)));
    st.feed(answered('item-identify', { kind: 'exception', status: 404, exceptionType: 'ItemNotFoundException', displayMessages: ['Unknown item'] }));
    const pickup = st.feed(...pinKeys('123456'), answered('pin-enter', cmd({ type: 'box-open', boxes: [B1], displayMessages: ['Box 1'] })));
    expect(displays(pickup).at(-1)).toEqual(['Box 1']);
  });
});

describe('the security bit', () => {
  const A = item('E004010000000001', 'A1');

  it('written only after box-open, after the pulse, then verified: done', () => {
    const st = idleStepper(config({ security: AFI }));
    expect(writes(st.feed(field(A)))).toEqual([]);
    const fx = st.feed(boxOpen);
    const kinds = fx.map((e) => e.type);
    expect(kinds.indexOf('pulse')).toBeLessThan(kinds.indexOf('write-security'));
    expect(writes(fx)).toEqual([{ type: 'write-security', reader: 'R', uids: [A.uid], write: { kind: 'afi', value: 0xc2 } }]);
    expect(timersStarted(fx)).toContainEqual({ timer: 'security-window', ms: 30_000 });
    const done = st.feed({ type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: true }] });
    expect(done).toContainEqual({ type: 'stop-timer', timer: 'security-window' });
    expect(st.state.rfid.job).toBeNull();
  });

  it("a tag whose AFI is neither of the library's values is logged (another library's item, or a wrong config)", () => {
    const st = idleStepper(config({ security: AFI }));
    const fx = st.feed(field({ ...A, afi: 0xd7 }));
    expect(logs(fx)).toContainEqual({ level: 'warn', msg: "RFID tag's AFI is neither the configured secured nor unsecured value" });
    expect(identified(fx)).toEqual(['A1']);
  });

  it('EAS: the bit reset', () => {
    const st = idleStepper(config({ security: { kind: 'eas' } }));
    st.feed(field(A));
    expect(writes(st.feed(boxOpen))[0]?.write).toEqual({ kind: 'eas', enabled: false });
  });

  it('no box-open, no write: an exception, an unanswered event, security off, a PIN pickup', () => {
    const exc = idleStepper(config({ security: AFI }));
    exc.feed(field(A));
    expect(
      writes(exc.feed(answered('item-identify', { kind: 'exception', status: 404, exceptionType: 'ItemNotFoundException', displayMessages: [] }))),
    ).toEqual([]);
    const lost = idleStepper(config({ security: AFI }));
    lost.feed(field(A));
    expect(writes(lost.feed({ type: 'unanswered', endpoint: 'item-identify', reason: 'timeout' }))).toEqual([]);
    const off = idleStepper(config());
    off.feed(field(A));
    expect(writes(off.feed(boxOpen))).toEqual([]);
    const pin = idleStepper(config({ security: AFI }));
    pin.feed(...'123456'.split('').map((digit): Input => ({ type: 'key', key: { kind: 'digit', digit } })), { type: 'key', key: { kind: 'enter' } });
    expect(writes(pin.feed(answered('pin-enter', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] }))))).toEqual([]);
  });

  it('not verified: "put the item back"; laid back on the reader it is written again (never reported again)', () => {
    const st = idleStepper(config({ security: AFI }));
    st.feed(field(A), boxOpen);
    st.take();
    const fail = st.feed({ type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: false, reason: 'read-back shows AFI 0x07, not 0xC2' }] });
    expect(sounds(fail)).toEqual(['refused']);
    expect(displays(fail).at(-1)).toEqual(st.config.messages.rfidPutBack);
    expect(timersStarted(fail)).toContainEqual({ timer: 'security-retry', ms: 1_000 });
    // Lifted, then laid back.
    st.feed(field());
    const back = st.feed(field(A));
    expect(identified(back)).toEqual([]);
    expect(writes(back)).toHaveLength(1);
    const ok = st.feed({ type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: true }] });
    expect(st.state.rfid.job).toBeNull();
    expect(displays(ok).at(-1)).not.toEqual(st.config.messages.rfidPutBack);
  });

  it('left on the reader after a failed write: the retry timer writes again', () => {
    const st = idleStepper(config({ security: AFI }));
    st.feed(field(A), boxOpen, { type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: false, reason: 'RF communication error' }] });
    st.take();
    expect(writes(st.feed(timer('security-retry')))).toHaveLength(1);
  });

  it('the window ends: error log, journal, technician status, the next /state names it (once); the deposit went on', () => {
    const st = idleStepper(config({ security: AFI }));
    st.feed(field(A), boxOpen, { type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: false, reason: 'write error' }] });
    st.take();
    const fx = st.feed(timer('security-window'));
    expect(logs(fx)).toContainEqual({ level: 'error', msg: 'RFID: security bit of a deposited item not cleared; the exit gates may alarm' });
    expect(fx).toContainEqual({ type: 'journal-security-failure', failure: expect.objectContaining({ itemId: 'A1', uids: [A.uid] }) as unknown });
    expect(st.state.rfid.failures).toHaveLength(1);
    expect(displays(fx).at(-1)).toEqual(st.config.messages.rfidSecurityFailed);
    expect(st.state.pendingErrors.some((e) => e.startsWith('RFID security bit not cleared on item A1'))).toBe(true);
    // A late result changes nothing; the box's pulse had gone out before any of this.
    const late = st.feed({ type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: true }] });
    expect([...sends(late), ...writes(late)]).toEqual([]);
    expect(st.state.rfid.failures).toHaveLength(1);
  });

  it('the next /state carries the failure as its errorMessage', () => {
    const st = idleStepper(config({ security: AFI }));
    st.feed(field(A), boxOpen, { type: 'security-result', reader: 'R', results: [{ uid: A.uid, ok: false, reason: 'write error' }] }, timer('security-window'));
    st.take();
    // The owed /state waits for the pulsed door's outcome, then goes out with the failure in it.
    const report = states(st.feed({ type: 'door', boxId: B1, state: 'OPEN' }))[0];
    expect(report?.st).toBe('DOWN');
    expect(report?.errorMessage).toContain('RFID security bit not cleared on item A1 (1 of 1 tags)');
  });
});
