/**
 * FEIG reader status bytes (the STATUS of every response) and what each is about. The names are
 * FEIG's; unknown codes are reported by number and treated as the reader refusing the command.
 */
import type { StatusKind } from '../errors.js';

export const STATUS = {
  ok: 0x00,
  noTransponder: 0x01,
  dataFalse: 0x02,
  writeError: 0x03,
  addressError: 0x04,
  wrongTransponderType: 0x05,
  generalError: 0x0e,
  eepromFailure: 0x10,
  parameterRange: 0x11,
  unknownCommand: 0x80,
  lengthError: 0x81,
  commandNotAvailable: 0x82,
  rfCommunicationError: 0x83,
  rfWarning: 0x84,
  dataBufferOverflow: 0x93,
  moreData: 0x94,
  iso15693Error: 0x95,
  hardwareWarning: 0xf1,
} as const;

const TABLE: Readonly<Record<number, readonly [string, StatusKind | 'ok']>> = {
  0x00: ['OK', 'ok'],
  0x01: ['no transponder', 'no-transponder'],
  0x02: ['data false (CRC error from the tag)', 'rf'],
  0x03: ['write error', 'tag'],
  0x04: ['address error', 'tag'],
  0x05: ['wrong transponder type', 'tag'],
  0x08: ['authentication error', 'tag'],
  0x0e: ['general error', 'reader'],
  0x10: ['EEPROM failure', 'reader'],
  0x11: ['parameter range error', 'reader'],
  0x13: ['login request', 'reader'],
  0x14: ['login error', 'reader'],
  0x15: ['read protect', 'tag'],
  0x16: ['write protect', 'tag'],
  0x17: ['firmware activation required', 'reader'],
  0x80: ['unknown command', 'reader'],
  0x81: ['length error', 'reader'],
  0x82: ['command not available', 'reader'],
  0x83: ['RF communication error', 'rf'],
  0x84: ['RF warning', 'rf'],
  0x93: ['data buffer overflow', 'reader'],
  0x94: ['more data', 'ok'],
  0x95: ['ISO 15693 error', 'tag'],
  0xf1: ['hardware warning: the firmware does not fit the hardware', 'reader'],
};

/** ISO/IEC 15693 error codes a 0x95 status carries in its first data byte. */
const ISO_ERRORS: Readonly<Record<number, string>> = {
  0x01: 'command not supported',
  0x02: 'command not recognised',
  0x03: 'option not supported',
  0x0f: 'unknown error',
  0x10: 'block not available',
  0x11: 'block already locked',
  0x12: 'block locked, cannot be changed',
  0x13: 'block not programmed',
  0x14: 'block not locked',
};

export function statusName(status: number): string {
  return TABLE[status]?.[0] ?? `status 0x${status.toString(16).padStart(2, '0')}`;
}

/** null: a success status (OK, more data). */
export function statusKind(status: number): StatusKind | null {
  const k = TABLE[status]?.[1] ?? 'reader';
  return k === 'ok' ? null : k;
}

/** "ISO 15693 error: block locked, cannot be changed" for a 0x95 answer; the plain name otherwise. */
export function describeStatus(status: number, data: Uint8Array): string {
  if (status !== STATUS.iso15693Error) return statusName(status);
  const code = data[0];
  if (code === undefined) return statusName(status);
  return `${statusName(status)}: ${ISO_ERRORS[code] ?? `code 0x${code.toString(16).padStart(2, '0')}`}`;
}
