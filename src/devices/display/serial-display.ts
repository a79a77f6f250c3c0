/**
 * A character LCD/VFD on a serial port (USB-serial backpack or UART), implementing Display.
 *
 * Protocol (configurable; the defaults suit "terminal-style" serial displays and LCD backpacks
 * in text mode): every show() sends `clear` (default form feed 0x0C: clear + cursor home), then
 * the fitted rows, each preceded by `rowStart[i]` (cursor positioning, default none) and
 * separated by `lineEnd` (default CR LF; none after the last row); with `padLines` each row is
 * padded with spaces to the full width. Text bytes are the charset's encoding (ascii/latin1:
 * one byte per character; utf8: UTF-8); protocol strings are sent as latin1 bytes ("\u00fe" = 0xFE).
 * Displays that wrap by themselves after the last column want `lineEnd: ""` with `padLines: true`.
 *
 * While the port is missing, health is not ok ("display <path> missing"), show() only records
 * the lines, and the latest lines are sent as soon as the port is back.
 */
import type { Logger } from 'pino';
import type { Display } from '../types.js';
import { HEALTHY, DeviceBase } from '../device-base.js';
import { Reconnector, type BackoffOptions } from '../input/reconnect.js';
import { openSerialPort, type SerialLink, type SerialOpener, type SerialPortOptions } from '../serial/link.js';
import { LatestWrite } from './latest-write.js';
import { fitLines, toCharset, type Charset, type DisplaySize, type Overflow } from './text.js';

export interface DisplayProtocol {
  readonly clear: string;
  readonly lineEnd: string;
  /** Per-row prefix (e.g. a set-cursor command); null = none. */
  readonly rowStart: readonly string[] | null;
  readonly padLines: boolean;
}

export interface SerialDisplayOptions {
  readonly port: SerialPortOptions;
  readonly size: DisplaySize;
  readonly charset: Charset;
  readonly overflow: Overflow;
  readonly protocol: DisplayProtocol;
  readonly writeTimeoutMs: number;
  readonly reconnect: BackoffOptions;
  readonly openTimeoutMs: number;
  readonly log: Logger;
  readonly opener?: SerialOpener;
}

/** The exact bytes one show() sends. Pure. */
export function renderSerialFrame(lines: readonly string[], o: Pick<SerialDisplayOptions, 'size' | 'charset' | 'overflow' | 'protocol'>): Buffer {
  const rows = fitLines(
    lines.map((l) => toCharset(l, o.charset)),
    o.size,
    o.overflow,
  );
  const p = o.protocol;
  const enc = o.charset === 'utf8' ? 'utf8' : 'latin1';
  const parts: Buffer[] = [Buffer.from(p.clear, 'latin1')];
  rows.forEach((row, i) => {
    if (i > 0) parts.push(Buffer.from(p.lineEnd, 'latin1'));
    parts.push(Buffer.from(p.rowStart?.[i] ?? '', 'latin1'));
    const text = p.padLines ? row + ' '.repeat(Math.max(0, o.size.columns - [...row].length)) : row;
    parts.push(Buffer.from(text, enc));
  });
  return Buffer.concat(parts);
}

export class SerialDisplay extends DeviceBase implements Display {
  private last: readonly string[] = [];
  private wanted: Buffer | null = null;
  private readonly writes = new LatestWrite(() => this.writeLatest());
  private readonly reconnector: Reconnector<SerialLink>;
  private closed = false;

  constructor(private readonly o: SerialDisplayOptions) {
    const name = `display ${o.port.path}`;
    super(name, { ok: false, detail: `${name} not opened yet` });
    const opener = o.opener ?? openSerialPort;
    this.reconnector = new Reconnector<SerialLink>({
      name,
      backoff: o.reconnect,
      openTimeoutMs: o.openTimeoutMs,
      log: o.log,
      // A display sends nothing we need; incoming bytes (key echoes of some backpacks) are ignored.
      open: (lost) => opener(o.port, { onData: () => undefined, lost }),
      onUp: () => {
        this.setHealth(HEALTHY);
        if (this.wanted) this.flush().catch((e: unknown) => o.log.warn({ device: name, error: String(e) }, 'display refresh after reconnect failed'));
      },
      onDown: (reason) => this.setHealth({ ok: false, detail: `${name} missing (${reason})` }),
    });
  }

  start(): Promise<void> {
    return this.reconnector.start();
  }

  /** Resolves once the bytes are handed to the OS, or at once while the display is missing. */
  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    this.wanted = renderSerialFrame(lines, this.o);
    return this.flush();
  }

  lastShown(): readonly string[] {
    return this.last;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clearHealthListeners();
    await this.reconnector.stop();
  }

  /** Write the latest wanted frame; shows arriving meanwhile are coalesced into one more write. */
  private flush(): Promise<void> {
    return this.writes.request();
  }

  private async writeLatest(): Promise<boolean> {
    const link = this.reconnector.current();
    const bytes = this.wanted;
    if (this.closed || !link || !bytes) return false;
    await link.write(bytes, this.o.writeTimeoutMs);
    return true;
  }
}
