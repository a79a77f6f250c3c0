/**
 * A family of host-mode readers: the protocol one make of reader speaks over a serial line. The
 * reader device (reader.ts) keeps the line open, polls, reads and decodes tags and writes their
 * security bit through a family's session; what differs between makes is only this interface, so
 * a second family is a file implementing it (and one entry in families.ts).
 *
 * A session is used by one caller at a time (the reader device serialises its calls). Every method
 * rejects with an RfidReaderError, never anything else; `link` errors (no answer, garbage, wrong
 * CRC) are what the device counts toward reconnecting.
 */
import type { Parity } from '../serial/link.js';

/** The serial line a family's readers use out of the box (what the profile defaults to). */
export interface LineDefaults {
  readonly baudRate: number;
  readonly dataBits: 5 | 6 | 7 | 8;
  readonly parity: Parity;
  readonly stopBits: 1 | 2;
}

export interface ReaderLink {
  /** Rejects when the bytes are not handed to the OS in time (never hangs). */
  write(bytes: Uint8Array, timeoutMs: number): Promise<void>;
}

export interface SessionOptions {
  /** For error messages, e.g. "RFID reader /dev/pickup-rfid". */
  readonly device: string;
  /** The reader's bus address (0xFF: broadcast, the one reader on the line answers). */
  readonly busAddress: number;
  /**
   * The frame requests go in: `auto` asks the advanced way at open and falls back to standard when
   * only that is answered, for as long as this session (the open line) lasts.
   */
  readonly frame: 'auto' | 'standard' | 'advanced';
  /** An exchange without a usable answer within this fails (no-answer). */
  readonly answerTimeoutMs: number;
  /** How the reader hands over a block's bytes: reversed (FEIG's host protocol) or in memory order. */
  readonly blockOrder: 'reversed' | 'memory';
  /** Blocks asked for per read command (an answer must fit the frame). */
  readonly blocksPerRead: number;
}

export interface InventoryTag {
  readonly uid: string;
  readonly dsfid: number | null;
}

export interface TagInfo {
  readonly uid: string;
  readonly dsfid: number | null;
  readonly afi: number | null;
  /**
   * How many blocks the tag may have, most likely first: readers write the count as ISO/IEC 15693
   * has it (blocks − 1) or literally, so both are candidates and the read of the last block
   * decides. null: the tag does not say (no system information, or a size of 0x0000); it is read
   * block by block until the reader says a block does not exist.
   */
  readonly blockCounts: readonly number[] | null;
}

/** Blocks as read, in memory order, with the block size the reader reported for them. */
export interface BlocksRead {
  readonly bytes: Uint8Array;
  readonly blockSize: number;
}

export interface ReaderSession {
  /** Bytes that arrived from the reader. */
  receive(chunk: Uint8Array): void;
  /** One harmless exchange proving the reader answers; resolves with what it says it is. */
  probe(): Promise<string>;
  /** Every tag in the field (several at once). */
  inventory(): Promise<readonly InventoryTag[]>;
  /** Block count, DSFID and AFI, from the tag itself; null when the tag has no system information. */
  tagInfo(uid: string): Promise<TagInfo | null>;
  /**
   * `count` blocks from block `first`, in memory order. Rejects with an error that
   * `blockMissing` recognises when a block does not exist on the tag.
   */
  readBlocks(uid: string, first: number, count: number): Promise<BlocksRead>;
  /** Whether `e` says a block asked for does not exist (the end of the tag's memory). */
  blockMissing(e: unknown): boolean;
  /** Frames dropped as no answer to the request in flight (another command or address, data that does not fit). */
  droppedAnswers(): number;
  writeAfi(uid: string, afi: number): Promise<void>;
  setEas(uid: string, enabled: boolean): Promise<void>;
  /** Whether the tag's EAS bit is set; rejects (no-transponder) when the tag is not there to ask. */
  easEnabled(uid: string): Promise<boolean>;
  /** Reject what is pending: the link is gone. */
  close(reason: string): void;
}

export interface ReaderFamily {
  /** The profile's `family` value. */
  readonly id: string;
  /** For log lines and the technician page. */
  readonly label: string;
  readonly line: LineDefaults;
  session(link: ReaderLink, o: SessionOptions): ReaderSession;
}
