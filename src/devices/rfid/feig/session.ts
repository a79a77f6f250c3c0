/**
 * The FEIG ISO host protocol as a reader family: frames (frame.ts) and commands (iso15693.ts) over
 * a serial link, one exchange at a time. Answers are accepted only from the command asked and, when
 * a bus address is set, from that reader; an error status becomes a typed RfidReaderError naming
 * FEIG's status (status.ts).
 *
 * FEIG readers ship at 38400 baud, 8 data bits, even parity, one stop bit, bus address 0: what the
 * profile defaults to (a reader reconfigured by its vendor's tool says otherwise).
 */
import { RfidReaderError } from '../errors.js';
import { maskIdentifier } from '../../../log.js';
import { Exchanger } from '../exchange.js';
import type { InventoryTag, ReaderFamily, ReaderLink, ReaderSession, SessionOptions, TagInfo } from '../family.js';
import { BROADCAST, encodeFrame, FrameParser, type Frame } from './frame.js';
import { CMD, NXP, parseInventory, parseReadBlocks, parseSystemInformation, requests, TR_TYPE_ISO15693, type Answer } from './iso15693.js';
import { describeStatus, STATUS, statusKind } from './status.js';

/** "More data" continuations asked for at most in one inventory (16 × 24 tags is far beyond a reader's field). */
const MAX_INVENTORY_PARTS = 16;

class FeigSession implements ReaderSession {
  private readonly ex: Exchanger<Frame>;

  constructor(
    link: ReaderLink,
    private readonly o: SessionOptions,
  ) {
    this.ex = new Exchanger<Frame>(o.device, link, new FrameParser(true), o.answerTimeoutMs);
  }

  receive(chunk: Uint8Array): void {
    this.ex.receive(chunk);
  }

  close(reason: string): void {
    this.ex.close(reason);
  }

  /** One command; resolves with the answer whatever its status. */
  private command(command: number, data: Uint8Array): Promise<Frame> {
    const request = encodeFrame({ type: this.o.frame, address: this.o.busAddress, command, status: null, data });
    const from = this.o.busAddress;
    return this.ex.exchange(request, (f) => f.command === command && (from === BROADCAST || f.address === from));
  }

  /** One command whose answer must carry one of `ok` statuses (else a typed status error). */
  private async checked(command: number, data: Uint8Array, what: string, ok: readonly number[] = [STATUS.ok]): Promise<Frame> {
    const f = await this.command(command, data);
    const status = f.status ?? 0;
    if (!ok.includes(status)) {
      throw new RfidReaderError(this.o.device, 'status', `${what}: ${describeStatus(status, f.data)}`, statusKind(status) ?? 'reader', status);
    }
    return f;
  }

  private value<T>(a: Answer<T>, what: string): T {
    if (!a.ok) throw new RfidReaderError(this.o.device, 'reply', `${what}: ${a.why}`);
    return a.value;
  }

  async probe(): Promise<string> {
    const f = await this.checked(CMD.softwareVersion, new Uint8Array(0), 'software version');
    const d = f.data;
    return d.length >= 4 ? `FEIG firmware ${d[0] ?? 0}.${d[1] ?? 0}.${d[2] ?? 0}, reader type 0x${(d[3] ?? 0).toString(16)}` : 'FEIG reader';
  }

  async inventory(): Promise<readonly InventoryTag[]> {
    const tags: InventoryTag[] = [];
    let more = false;
    for (let part = 0; part < MAX_INVENTORY_PARTS; part++) {
      const f = await this.checked(CMD.iso, requests.inventory(more), 'inventory', [STATUS.ok, STATUS.noTransponder, STATUS.moreData]);
      if (f.status === STATUS.noTransponder) return tags;
      const records = this.value(parseInventory(f.data), 'inventory');
      // Other transponder types (on a multi-standard reader) are not library labels.
      for (const r of records) if (r.trType === TR_TYPE_ISO15693) tags.push({ uid: r.uid, dsfid: r.dsfid });
      if (f.status !== STATUS.moreData) return tags;
      more = true;
    }
    return tags;
  }

  async tagInfo(uid: string): Promise<TagInfo> {
    const f = await this.checked(CMD.iso, requests.systemInformation(uid), `system information of ${maskIdentifier(uid)}`);
    const info = this.value(parseSystemInformation(f.data), `system information of ${maskIdentifier(uid)}`);
    if (info.uid !== uid)
      throw new RfidReaderError(this.o.device, 'reply', `system information answered for ${maskIdentifier(info.uid)}, asked for ${maskIdentifier(uid)}`);
    return { uid, dsfid: info.dsfid, afi: info.afi, blockSize: info.blockSize, blockCount: info.blockCount };
  }

  async readBlocks(uid: string, first: number, count: number, blockSize: number): Promise<Uint8Array> {
    const out = new Uint8Array(count * blockSize);
    for (let done = 0; done < count;) {
      const n = Math.min(this.o.blocksPerRead, count - done);
      const what = `read of blocks ${first + done}–${first + done + n - 1} of ${maskIdentifier(uid)}`;
      const f = await this.checked(CMD.iso, requests.readBlocks(uid, first + done, n), what);
      const read = this.value(parseReadBlocks(f.data, n), what);
      if (read.blockSize !== blockSize)
        throw new RfidReaderError(this.o.device, 'reply', `${what}: blocks of ${read.blockSize} bytes, the tag said ${blockSize}`);
      read.blocks.forEach((b, i) => out.set(this.o.blockOrder === 'reversed' ? Uint8Array.from(b).reverse() : b, (done + i) * blockSize));
      done += n;
    }
    return out;
  }

  async writeAfi(uid: string, afi: number): Promise<void> {
    await this.checked(CMD.iso, requests.writeAfi(uid, afi), `AFI write to ${maskIdentifier(uid)}`);
  }

  async setEas(uid: string, enabled: boolean): Promise<void> {
    await this.checked(CMD.custom, requests.nxp(enabled ? NXP.setEas : NXP.resetEas, uid), `EAS ${enabled ? 'set' : 'reset'} on ${maskIdentifier(uid)}`);
  }

  async easEnabled(uid: string): Promise<boolean> {
    const f = await this.checked(CMD.custom, requests.nxp(NXP.easAlarm, uid), `EAS alarm of ${maskIdentifier(uid)}`, [STATUS.ok, STATUS.noTransponder]);
    return f.status === STATUS.ok;
  }
}

export const feigIsoHost: ReaderFamily = {
  id: 'feig-iso-host',
  label: 'FEIG ISO host protocol',
  line: { baudRate: 38_400, dataBits: 8, parity: 'even', stopBits: 1 },
  session: (link, o) => new FeigSession(link, o),
};
