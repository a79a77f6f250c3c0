/**
 * Display texts of the reference server, exported so tests and the demo assert on the same
 * strings the server sends. A real library server localizes these; the station only shows them.
 */
import type { ExceptionBody } from './types.js';

export const PROMPT_MESSAGES: readonly string[] = ['Scan an item', 'or enter your PIN'];

/** "box 4" or "boxes 5, 6". */
export function boxList(numbers: readonly number[]): string {
  return numbers.length === 1 ? `box ${numbers[0]}` : `boxes ${numbers.join(', ')}`;
}

export const depositBoxOpenMessages = (n: number): string[] => [`Box ${n} opens`, 'put the item in and close'];
export const depositClosingMessages = (n: number): string[] => [`Put the item in box ${n}`, 'and close the door'];
export const pickupBoxOpenMessages = (ns: readonly number[]): string[] => [
  ns.length === 1 ? `Box ${ns[0]} opens` : `Boxes ${ns.join(', ')} open`,
  'take your items',
];
export const pickupClosingMessages = (ns: readonly number[]): string[] => [`Take your items from ${boxList(ns)}`, 'and close the door'];
export const cancelledMessages = (n: number): string[] => ['Cancelled', `close box ${n}`];

export const EXCEPTION_MESSAGES = {
  AuthenticationException: ['Station not authorized', 'call the library'],
  BadRequestException: ['Invalid request'],
  UnsupportedMediaTypeException: ['Invalid request'],
  NotFoundException: ['Unknown request'],
  MethodNotAllowedException: ['Unknown request'],
  PayloadTooLargeException: ['Invalid request'],
  EventIdConflictException: ['Invalid request'],
  ItemNotFoundException: ['Item not found', 'please ask the staff'],
  ItemAlreadyDepositedException: ['Item already deposited'],
  InvalidPinException: ['Invalid PIN', 'please try again'],
  StationUnavailableException: ['Station unavailable', 'please try later'],
  StationDisabledException: ['Station not available'],
  ActionInProgressException: ['Please close the box first'],
  CannotCancelException: ['This cannot be cancelled'],
  IllegalStateException: ['Something went wrong', 'please try again'],
} as const satisfies Record<string, readonly string[]>;

export type ExceptionType = keyof typeof EXCEPTION_MESSAGES;

export function exceptionBody(exceptionType: ExceptionType, message?: string, displayMessages?: readonly string[]): ExceptionBody {
  const base = { type: 'exception' as const, exceptionType, displayMessages: displayMessages ?? EXCEPTION_MESSAGES[exceptionType] };
  return message === undefined ? base : { ...base, message };
}
