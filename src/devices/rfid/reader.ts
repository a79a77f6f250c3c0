/**
 * A host-mode RFID reader on a serial line (USB-serial or RS-232), implementing RfidReader.
 *
 * - The line: opened, probed (one harmless command the reader must answer) and reopened with capped
 *   exponential backoff by the base every driver with a link shares (reconnecting-device.ts). A
 *   reader that is unplugged, answers nothing, garbage or a wrong CRC `failuresBeforeReconnect`
 *   times in a row is closed and reopened; meanwhile health says why (st DOWN with that text).
 * - The field: an inventory every `inventoryIntervalMs`; a tag is present from the first round that
 *   sees it until `absentRounds` rounds in a row have missed it (field.ts). Its memory is read and
 *   decoded once (tag information for block size and count, then as many blocks as its data needs:
 *   tag-memory.ts), retried on the next rounds up to `readAttempts` times. Known tags survive a reconnect: the same item lying on the
 *   reader is not reported again because the cable hiccuped.
 * - Listeners hear the whole field whenever it changes; the core decides what is a report.
 * - Security writes run between rounds (the line is half-duplex) and are verified by reading back.
 */
import type { Logger } from 'pino';
import { maskIdentifier } from '../../log.js';
import { Listeners } from '../device-base.js';
import type { BackoffOptions, Link } from '../reconnect.js';
import { ReconnectingDevice } from '../reconnecting-device.js';
import type { SerialOpener, SerialPortOptions } from '../serial/link.js';
import { describeLoss } from '../serial/loss.js';
import type { RfidProblem, RfidReader, RfidReaderStats, RfidTag, RfidTagData, SecurityWrite, SecurityWriteResult, Unsubscribe } from '../types.js';
import { RfidReaderError, rfidDetail } from './errors.js';
import type { ReaderFamily, ReaderSession, SessionOptions } from './family.js';
import { FieldTracker } from './field.js';
import { mediaFormatLabel } from './models/decode.js';
import { readTagData } from './tag-memory.js';

export interface HostModeReaderOptions {
  readonly family: ReaderFamily;
  readonly port: SerialPortOptions;
  /** Default: "RFID reader <path>". */
  readonly name?: string;
  readonly busAddress: number;
  readonly frame: 'auto' | 'standard' | 'advanced';
  readonly answerTimeoutMs: number;
  readonly blockOrder: 'reversed' | 'memory';
  readonly blocksPerRead: number;
  /**
   * Blocks of user memory read at most while the data does not run on past them (tag-memory.ts reads
   * as far as the data needs, `blocksPerRead` at a time); a tag whose data runs on is read to its end.
   */
  readonly maxBlocks: number;
  readonly send: 'item-id' | 'uid';
  readonly inventoryIntervalMs: number;
  readonly absentRounds: number;
  readonly readAttempts: number;
  readonly failuresBeforeReconnect: number;
  readonly reconnect: BackoffOptions;
  readonly openTimeoutMs: number;
  readonly log: Logger;
  /**
   * The hardware boundary: the serial port (openSerialPort), or (simulated hardware) the model
   * reader's line. Given, not defaulted, so that simulated hardware never loads serialport's addon.
   */
  readonly opener: SerialOpener;
}

interface Connection extends Link {
  readonly session: ReaderSession;
  readonly lost: (reason: string) => void;
}

/** Tags the technician page lists at most. */
const LAST_TAGS = 10;
function maskUid(uid: string): string {
  return `…${uid.slice(-3)}`;
}

interface Known {
  tag: RfidTag | null;
  attempts: number;
}

export class HostModeReader extends ReconnectingDevice<Connection> implements RfidReader {
  readonly send: 'item-id' | 'uid';
  private readonly fields = new Listeners<[readonly RfidTag[]]>();
  private readonly tracker: FieldTracker;
  private readonly known = new Map<string, Known>();
  private readonly sessionOptions: SessionOptions;
  private readonly opener: SerialOpener;
  private conn: Connection | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private emitted = '';
  private ups = 0;
  private droppedBefore = 0;
  private readonly counts = {
    tagsRead: 0,
    unreadable: { blank: 0, unknown: 0, truncated: 0, damaged: 0, 'read-failed': 0 } as Record<RfidProblem, number>,
    securityWrites: 0,
    securityWriteFailures: 0,
  };
  private readonly lastTags: { uid: string; model: string | null; problem: RfidProblem | null; owner: string | null; media: string | null }[] = [];

  constructor(private readonly o: HostModeReaderOptions) {
    const name = o.name ?? `RFID reader ${o.port.path}`;
    super(name, { reconnect: o.reconnect, openTimeoutMs: o.openTimeoutMs, log: o.log });
    this.send = o.send;
    this.tracker = new FieldTracker(o.absentRounds);
    this.sessionOptions = {
      device: name,
      busAddress: o.busAddress,
      frame: o.frame,
      answerTimeoutMs: o.answerTimeoutMs,
      blockOrder: o.blockOrder,
      blocksPerRead: o.blocksPerRead,
    };
    this.opener = o.opener;
  }

  onField(listener: (tags: readonly RfidTag[]) => void): Unsubscribe {
    return this.fields.add(listener);
  }

  stats(): RfidReaderStats {
    return {
      tagsRead: this.counts.tagsRead,
      unreadable: { ...this.counts.unreadable },
      securityWrites: this.counts.securityWrites,
      securityWriteFailures: this.counts.securityWriteFailures,
      reconnects: Math.max(0, this.ups - 1),
      answersDropped: this.droppedBefore + (this.conn?.session.droppedAnswers() ?? 0),
      lastTags: [...this.lastTags],
    };
  }

  private noteTag(t: RfidTag): void {
    if (t.data.kind === 'item') this.counts.tagsRead++;
    else if (t.data.kind === 'unreadable') this.counts.unreadable[t.data.problem]++;
    else return;
    const item = t.data.kind === 'item' ? t.data : null;
    this.lastTags.push({
      uid: maskUid(t.uid),
      model: item?.model ?? null,
      problem: t.data.kind === 'unreadable' ? t.data.problem : null,
      owner: item?.owner == null ? null : maskIdentifier(item.owner),
      media: item?.mediaFormat == null ? null : mediaFormatLabel(item.mediaFormat),
    });
    if (this.lastTags.length > LAST_TAGS) this.lastTags.shift();
  }

  writeSecurity(uids: readonly string[], write: SecurityWrite): Promise<readonly SecurityWriteResult[]> {
    return this.exclusive(async () => {
      const out: SecurityWriteResult[] = [];
      for (const uid of uids) {
        const r = await this.writeOne(uid, write);
        if (r.ok) this.counts.securityWrites++;
        else this.counts.securityWriteFailures++;
        out.push(r);
      }
      return out;
    });
  }

  protected override openLink(lost: (reason: string) => void): Promise<Connection> {
    return this.open(this.opener, lost);
  }

  protected override linkUp(c: Connection): void {
    this.ups++;
    this.conn = c;
    this.failures = 0;
    this.schedule(0);
  }

  protected override linkDown(): void {
    this.droppedBefore += this.conn?.session.droppedAnswers() ?? 0;
    this.conn = null;
    this.stopTimer();
  }

  /** "RFID reader /dev/pickup-rfid-reader: no answer within 500 ms (3 requests in a row)". */
  protected override downDetail(reason: string): string {
    return `${this.name}: ${reason}`;
  }

  protected override onClose(): void {
    this.stopTimer();
    this.fields.clear();
  }

  // --- the line --------------------------------------------------------------------------------

  private async open(opener: SerialOpener, lost: (reason: string) => void): Promise<Connection> {
    let session: ReaderSession | null = null;
    const link = await opener(this.o.port, { onData: (chunk) => session?.receive(chunk), lost: (loss) => lost(describeLoss(loss)) });
    const s = this.o.family.session(link, this.sessionOptions);
    session = s;
    try {
      const who = await s.probe();
      this.o.log.info({ device: this.name, reader: who, family: this.o.family.label }, 'RFID reader answers');
    } catch (e) {
      s.close('probe failed');
      await link.close().catch(() => undefined);
      throw new Error(`no answer to its first request (${rfidDetail(e)})`);
    }
    return {
      session: s,
      lost,
      close: async () => {
        s.close('closed');
        await link.close();
      },
    };
  }

  /** Run `fn` with the line to itself: rounds and writes never interleave. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => undefined);
    return p;
  }

  private schedule(ms: number): void {
    this.stopTimer();
    if (this.closed || this.conn === null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.exclusive(() => this.round())
        .catch((e: unknown) => this.o.log.error({ device: this.name, error: rfidDetail(e) }, 'RFID round failed'))
        .finally(() => {
          if (this.timer === null) this.schedule(this.o.inventoryIntervalMs);
        });
    }, ms);
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private succeeded(): void {
    if (this.failures > 0) this.o.log.info({ device: this.name, after: this.failures }, 'RFID reader answers again');
    this.failures = 0;
  }

  /** A failed exchange with the reader; enough in a row and the line is reopened. */
  private failed(c: Connection, e: unknown, what: string): void {
    this.failures++;
    const detail = rfidDetail(e);
    this.o.log.debug({ device: this.name, what, error: detail, inARow: this.failures }, 'RFID reader exchange failed');
    if (this.failures >= this.o.failuresBeforeReconnect && this.conn === c) {
      this.failures = 0;
      c.lost(`${detail} (${this.o.failuresBeforeReconnect} requests in a row)`);
    }
  }

  // --- the field ---------------------------------------------------------------------------------

  private async round(): Promise<void> {
    const c = this.conn;
    if (c === null || this.closed) return;
    let seen;
    try {
      seen = await c.session.inventory();
      this.succeeded();
    } catch (e) {
      this.failed(c, e, 'inventory');
      return;
    }
    const change = this.tracker.round(seen.map((t) => t.uid));
    for (const uid of change.left) {
      this.known.delete(uid);
      this.o.log.debug({ device: this.name, uid: maskIdentifier(uid) }, 'tag left the field');
    }
    for (const uid of change.arrived) this.o.log.debug({ device: this.name, uid: maskIdentifier(uid) }, 'tag in the field');
    for (const t of seen) {
      const k = this.known.get(t.uid) ?? { tag: null, attempts: 0 };
      this.known.set(t.uid, k);
      if (k.tag !== null || this.conn !== c) continue;
      if (this.send === 'uid') {
        k.tag = { uid: t.uid, afi: null, data: { kind: 'uid-only' } };
        continue;
      }
      try {
        k.tag = await this.readTag(c.session, t.uid, t.dsfid);
        this.succeeded();
        this.noteTag(k.tag);
      } catch (e) {
        // The reader refusing the command (a firmware that does not fit its hardware, a
        // configuration) is the reader's fault, never the tag's: it counts toward reconnecting
        // and health, not toward the tag's attempts.
        if (e instanceof RfidReaderError && e.statusKind === 'reader') {
          this.failed(c, e, `read of ${maskIdentifier(t.uid)}`);
          continue;
        }
        k.attempts++;
        if (e instanceof RfidReaderError && e.link) this.failed(c, e, `read of ${maskIdentifier(t.uid)}`);
        if (k.attempts >= this.o.readAttempts) {
          k.tag = { uid: t.uid, afi: null, data: { kind: 'unreadable', problem: 'read-failed', detail: `${k.attempts} reads failed: ${rfidDetail(e)}` } };
          this.noteTag(k.tag);
        }
      }
    }
    this.emit();
  }

  private async readTag(session: ReaderSession, uid: string, dsfid: number | null): Promise<RfidTag> {
    const info = await session.tagInfo(uid);
    const { memory: mem, decoded } = await readTagData(session, uid, info?.blockCounts ?? null, info?.dsfid ?? dsfid, {
      blocksPerRead: this.o.blocksPerRead,
      maxBlocks: this.o.maxBlocks,
    });
    let data: RfidTagData;
    if (decoded.kind === 'item') {
      const { model, itemId, set, owner, mediaFormat } = decoded;
      data = { kind: 'item', model, itemId, set, owner, mediaFormat };
      this.o.log.debug(
        {
          device: this.name,
          uid: maskIdentifier(uid),
          model,
          set,
          owner: owner === null ? null : maskIdentifier(owner),
          media: mediaFormat === null ? null : mediaFormatLabel(mediaFormat),
          bytesRead: mem.bytes.length,
          notes: decoded.notes,
        },
        'tag read',
      );
    } else {
      data = { kind: 'unreadable', problem: decoded.problem, detail: decoded.detail };
      this.o.log.info({ device: this.name, uid: maskIdentifier(uid), problem: decoded.problem, detail: decoded.detail }, 'tag not readable as library data');
    }
    return { uid, afi: info?.afi ?? null, data };
  }

  private emit(): void {
    const tags = this.tracker
      .present()
      .map((uid) => this.known.get(uid)?.tag ?? null)
      .filter((t): t is RfidTag => t !== null)
      .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const print = JSON.stringify(tags.map((t) => [t.uid, t.data]));
    if (print === this.emitted) return;
    this.emitted = print;
    this.fields.emit(tags);
  }

  // --- the security bit ------------------------------------------------------------------------------

  private async writeOne(uid: string, write: SecurityWrite): Promise<SecurityWriteResult> {
    const c = this.conn;
    if (c === null) return { uid, ok: false, reason: `${this.name} is not connected` };
    const session = c.session;
    const step = async <T>(what: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; why: string }> => {
      try {
        const value = await fn();
        this.succeeded();
        return { ok: true, value };
      } catch (e) {
        if (e instanceof RfidReaderError && e.link) this.failed(c, e, what);
        return { ok: false, why: rfidDetail(e) };
      }
    };
    if (write.kind === 'afi') {
      const w = await step('AFI write', () => session.writeAfi(uid, write.value));
      const back = await step('AFI read-back', () => session.tagInfo(uid));
      const wrote = w.ok ? '' : `; the write answered: ${w.why}`;
      if (!back.ok) return { uid, ok: false, reason: `AFI not verified, the read-back failed: ${back.why}${wrote}` };
      if (back.value === null) return { uid, ok: false, reason: `AFI not verified: the tag gives no system information${wrote}` };
      const afi = back.value.afi;
      if (afi !== write.value) return { uid, ok: false, reason: `read-back shows AFI ${hex(afi)}, not ${hex(write.value)}${wrote}` };
      this.setKnownAfi(uid, afi);
      if (!w.ok)
        this.o.log.warn({ device: this.name, uid: maskIdentifier(uid), write: w.why }, 'AFI write answered an error, but the read-back shows it applied');
      return { uid, ok: true };
    }
    const w = await step('EAS write', () => session.setEas(uid, write.enabled));
    const wrote = w.ok ? '' : `; the write answered: ${w.why}`;
    const back = await step('EAS read-back', () => session.easEnabled(uid));
    if (!back.ok) return { uid, ok: false, reason: `EAS not verified, the read-back failed: ${back.why}${wrote}` };
    if (back.value !== write.enabled) return { uid, ok: false, reason: `read-back shows EAS ${back.value ? 'set' : 'not set'}${wrote}` };
    // A tag without its EAS bit does not answer the EAS alarm, just like a tag that left: ask it.
    if (!write.enabled) {
      const here = await step('presence check', () => session.tagInfo(uid));
      if (!here.ok) return { uid, ok: false, reason: `EAS not verified: the tag did not answer (${here.why})${wrote}` };
    }
    return { uid, ok: true };
  }

  private setKnownAfi(uid: string, afi: number): void {
    const k = this.known.get(uid);
    if (k?.tag) k.tag = { ...k.tag, afi };
  }
}

function hex(v: number | null): string {
  return v === null ? 'unknown' : `0x${v.toString(16).padStart(2, '0').toUpperCase()}`;
}
