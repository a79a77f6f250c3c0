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
import type { BackoffOptions } from '../reconnect.js';
import { openSerialPort, type SerialLink, type SerialOpener, type SerialPortOptions } from '../serial/link.js';
import { describeLoss } from '../serial/loss.js';
import { ReconnectingDisplay } from './reconnecting-display.js';
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

export class SerialDisplay extends ReconnectingDisplay<SerialLink> {
  private wanted: Buffer | null = null;
  private readonly opener: SerialOpener;

  constructor(private readonly o: SerialDisplayOptions) {
    super(`display ${o.port.path}`, o);
    this.opener = o.opener ?? openSerialPort;
  }

  override show(lines: readonly string[]): Promise<void> {
    this.wanted = renderSerialFrame(lines, this.o);
    return super.show(lines);
  }

  protected openLink(lost: (reason: string) => void): Promise<SerialLink> {
    // A display sends nothing we need; incoming bytes (key echoes of some backpacks) are ignored.
    return this.opener(this.o.port, { onData: () => undefined, lost: (loss) => lost(describeLoss(loss)) });
  }

  protected override linkUp(): void {
    if (this.wanted) this.refresh();
  }

  /** Resolves once the bytes are handed to the OS. */
  protected async write(link: SerialLink, _lines: readonly string[]): Promise<boolean> {
    const bytes = this.wanted;
    if (!bytes) return false;
    await link.write(bytes, this.o.writeTimeoutMs);
    return true;
  }
}
