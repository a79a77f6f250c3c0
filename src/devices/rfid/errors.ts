/**
 * Typed errors of the host-mode reader drivers. Each says what a technician can act on; `link`
 * errors (no answer, wrong CRC, garbage) are about the cable and the reader and count toward
 * reconnecting it, the others are about a tag or a command and do not.
 */
import { DeviceError } from '../../errors.js';

/**
 * - `no-answer`: nothing usable came back in time (the detail says what did: nothing, garbage, a
 *   frame with a wrong CRC, an incomplete frame);
 * - `status`: the reader answered with an error status (`statusKind` sorts it);
 * - `reply`: the reader answered OK but the answer's data cannot be what was asked for.
 */
export type RfidErrorKind = 'no-answer' | 'status' | 'reply';

/**
 * What a reader's error status is about: `no-transponder` (the tag is not in the field, or did not
 * answer: it may have left), `rf` (radio trouble: retry), `tag` (the tag refused: locked, address,
 * write error), `reader` (the reader refused the command: configuration, firmware, length).
 */
export type StatusKind = 'no-transponder' | 'rf' | 'tag' | 'reader';

export class RfidReaderError extends DeviceError {
  constructor(
    device: string,
    readonly kind: RfidErrorKind,
    /** The message without the device's name (for a health detail that names it once). */
    readonly detail: string,
    readonly statusKind: StatusKind | null = null,
    readonly status: number | null = null,
    /** The ISO/IEC 15693 error code a tag answered (inside the reader's status), when it did. */
    readonly isoError: number | null = null,
  ) {
    super(device, detail);
  }

  /** Whether this says something about the link to the reader (what reconnecting may cure). */
  get link(): boolean {
    return this.kind === 'no-answer';
  }
}

/** What went wrong, without the device's name in front when it is one of ours. */
export function rfidDetail(e: unknown): string {
  if (e instanceof RfidReaderError) return e.detail;
  return e instanceof Error ? e.message : String(e);
}
