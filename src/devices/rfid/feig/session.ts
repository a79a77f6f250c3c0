/**
 * The FEIG ISO host protocol as a reader family: frames (frame.ts) and commands (iso15693.ts) over
 * a serial link, one exchange at a time. An answer counts only when it matches the request in
 * flight: the same command byte, the reader's bus address (unless the request was broadcast), and —
 * when its status says success — data that can be this request's answer (an inventory's records,
 * the asked tag's system information, the asked number of blocks). Anything else is dropped and
 * counted (`droppedAnswers`): a flood of well-formed frames cannot pass for an answer. An error
 * status becomes a typed RfidReaderError naming FEIG's status (status.ts).
 *
 * Frames: `auto` asks the advanced way at open and, when only a standard request is answered,
 * speaks standard for as long as the line stays open; answers are read in either frame type.
 *
 * FEIG readers ship at 38400 baud, 8 data bits, even parity, one stop bit, bus address 0: what the
 * profile defaults to (a reader reconfigured by its vendor's tool says otherwise).
 */
import { RfidReaderError } from '../errors.js';
import { maskIdentifier } from '../../../log.js';
import { Exchanger } from '../exchange.js';
import type { BlocksRead, InventoryTag, ReaderFamily, ReaderLink, ReaderSession, SessionOptions, TagInfo } from '../family.js';
import { BROADCAST, encodeFrame, FrameParser, type Frame, type FrameType } from './frame.js';
import {
  CMD,
  NXP,
  parseInventory,
  parseReadBlocks,
  parseSoftwareVersion,
  parseSystemInformation,
  requests,
  TR_TYPE_ISO15693,
  uidString,
  UID_BYTES,
  type Answer,
} from './iso15693.js';
import { describeStatus, STATUS, statusKind } from './status.js';

/** "More data" continuations asked for at most in one inventory (16 × 24 tags is far beyond a reader's field). */
const MAX_INVENTORY_PARTS = 16;
/** ISO/IEC 15693 error "block not available" (inside status 0x95). */
const ISO_BLOCK_NOT_AVAILABLE = 0x10;

/** Whether an answer's data fits the request (checked only when its status says success). */
type Fits = (data: Uint8Array) => boolean;
const anyData: Fits = () => true;
const noData: Fits = (d) => d.length === 0;

class FeigSession implements ReaderSession {
  private readonly ex: Exchanger<Frame>;
  private frame: FrameType;

  constructor(
    link: ReaderLink,
    private readonly o: SessionOptions,
  ) {
    this.ex = new Exchanger<Frame>(o.device, link, new FrameParser(true), o.answerTimeoutMs);
    this.frame = o.frame === 'standard' ? 'standard' : 'advanced';
  }

  receive(chunk: Uint8Array): void {
    this.ex.receive(chunk);
  }

  close(reason: string): void {
    this.ex.close(reason);
  }

  droppedAnswers(): number {
    return this.ex.droppedFrames;
  }

  /** One command; resolves with its answer whatever its status. */
  private command(command: number, data: Uint8Array, fits: Fits): Promise<Frame> {
    const request = encodeFrame({ type: this.frame, address: this.o.busAddress, command, status: null, data });
    const from = this.o.busAddress;
    return this.ex.exchange(request, (f) => f.command === command && (from === BROADCAST || f.address === from) && (!success(f.status) || fits(f.data)));
  }

  /** One command whose answer must carry one of `ok` statuses (else a typed status error). */
  private async checked(command: number, data: Uint8Array, what: string, fits: Fits, ok: readonly number[] = [STATUS.ok]): Promise<Frame> {
    const f = await this.command(command, data, fits);
    const status = f.status ?? 0;
    if (!ok.includes(status)) {
      const iso = status === STATUS.iso15693Error ? (f.data[0] ?? null) : null;
      throw new RfidReaderError(this.o.device, 'status', `${what}: ${describeStatus(status, f.data)}`, statusKind(status) ?? 'reader', status, iso);
    }
    return f;
  }

  private value<T>(a: Answer<T>, what: string): T {
    if (!a.ok) throw new RfidReaderError(this.o.device, 'reply', `${what}: ${a.why}`);
    return a.value;
  }

  async probe(): Promise<string> {
    const fits: Fits = (d) => parseSoftwareVersion(d).ok;
    let f: Frame;
    try {
      f = await this.checked(CMD.softwareVersion, new Uint8Array(0), 'software version', fits);
    } catch (e) {
      if (this.o.frame !== 'auto' || !(e instanceof RfidReaderError) || e.kind !== 'no-answer') throw e;
      // Some readers answer only what is asked in standard frames: ask once more that way.
      this.frame = 'standard';
      try {
        f = await this.checked(CMD.softwareVersion, new Uint8Array(0), 'software version', fits);
      } catch (e2) {
        this.frame = 'advanced';
        throw e2;
      }
    }
    const v = this.value(parseSoftwareVersion(f.data), 'software version');
    const hex = (n: number): string => `0x${n.toString(16).padStart(2, '0')}`;
    return `FEIG firmware ${v.firmware}, hardware options ${hex(v.hardwareOptions)}, reader type ${hex(v.readerType)}, ${this.frame} frames`;
  }

  async inventory(): Promise<readonly InventoryTag[]> {
    const tags: InventoryTag[] = [];
    let more = false;
    const fits: Fits = (d) => parseInventory(d).ok;
    for (let part = 0; part < MAX_INVENTORY_PARTS; part++) {
      const f = await this.checked(CMD.iso, requests.inventory(more), 'inventory', fits, [STATUS.ok, STATUS.noTransponder, STATUS.moreData]);
      if (f.status === STATUS.noTransponder) return tags;
      const records = this.value(parseInventory(f.data), 'inventory');
      // Other transponder types (on a multi-standard reader) are not library labels.
      for (const r of records) if (r.trType === TR_TYPE_ISO15693) tags.push({ uid: r.uid, dsfid: r.dsfid });
      if (f.status !== STATUS.moreData) return tags;
      more = true;
    }
    return tags;
  }

  async tagInfo(uid: string): Promise<TagInfo | null> {
    const what = `system information of ${maskIdentifier(uid)}`;
    const fits: Fits = (d) => d.length === 13 && uidString(d.subarray(1, 1 + UID_BYTES)) === uid;
    let f: Frame;
    try {
      f = await this.checked(CMD.iso, requests.systemInformation(uid), what, fits);
    } catch (e) {
      // A tag that does not support the command (an ISO 15693 error from the tag): no system information.
      if (e instanceof RfidReaderError && e.status === STATUS.iso15693Error) return null;
      throw e;
    }
    const info = this.value(parseSystemInformation(f.data), what);
    return { uid, dsfid: info.dsfid, afi: info.afi, blockCounts: info.blockCounts };
  }

  async readBlocks(uid: string, first: number, count: number): Promise<BlocksRead> {
    const parts: Uint8Array[] = [];
    let blockSize = 0;
    for (let done = 0; done < count;) {
      const n = Math.min(this.o.blocksPerRead, count - done);
      const what = `read of blocks ${first + done}–${first + done + n - 1} of ${maskIdentifier(uid)}`;
      const f = await this.checked(CMD.iso, requests.readBlocks(uid, first + done, n), what, (d) => parseReadBlocks(d, n).ok);
      const read = this.value(parseReadBlocks(f.data, n), what);
      if (blockSize !== 0 && read.blockSize !== blockSize)
        throw new RfidReaderError(this.o.device, 'reply', `${what}: blocks of ${read.blockSize} bytes, earlier ones had ${blockSize}`);
      blockSize = read.blockSize;
      for (const b of read.blocks) parts.push(this.o.blockOrder === 'reversed' ? Uint8Array.from(b).reverse() : b);
      done += n;
    }
    const bytes = new Uint8Array(parts.length * blockSize);
    parts.forEach((b, i) => bytes.set(b, i * blockSize));
    return { bytes, blockSize };
  }

  blockMissing(e: unknown): boolean {
    if (!(e instanceof RfidReaderError) || e.kind !== 'status') return false;
    return e.status === STATUS.addressError || (e.status === STATUS.iso15693Error && e.isoError === ISO_BLOCK_NOT_AVAILABLE);
  }

  async writeAfi(uid: string, afi: number): Promise<void> {
    await this.checked(CMD.iso, requests.writeAfi(uid, afi), `AFI write to ${maskIdentifier(uid)}`, noData);
  }

  async setEas(uid: string, enabled: boolean): Promise<void> {
    await this.checked(
      CMD.custom,
      requests.nxp(enabled ? NXP.setEas : NXP.resetEas, uid),
      `EAS ${enabled ? 'set' : 'reset'} on ${maskIdentifier(uid)}`,
      noData,
    );
  }

  async easEnabled(uid: string): Promise<boolean> {
    const f = await this.checked(CMD.custom, requests.nxp(NXP.easAlarm, uid), `EAS alarm of ${maskIdentifier(uid)}`, anyData, [
      STATUS.ok,
      STATUS.noTransponder,
    ]);
    return f.status === STATUS.ok;
  }
}

/** Success statuses: their data must fit the request for the answer to count. */
function success(status: number | null): boolean {
  return status === STATUS.ok || status === STATUS.moreData;
}

export const feigIsoHost: ReaderFamily = {
  id: 'feig-iso-host',
  label: 'FEIG ISO host protocol',
  line: { baudRate: 38_400, dataBits: 8, parity: 'even', stopBits: 1 },
  session: (link, o) => new FeigSession(link, o),
};
