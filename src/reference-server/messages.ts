/**
 * Display texts of the reference server, exported so tests and the demo assert on the same
 * strings the server sends. Like a real library server it localizes them by the request's
 * Accept-Language (Czech or English, English when neither is asked for); the station only shows them.
 */
import type { ExceptionShape } from '../protocol/shapes.js';

/** The protocol's error body (any 4xx/5xx). `message` is an extra, ignored by stations, for humans. */
export interface ExceptionBody extends ExceptionShape {
  readonly message?: string;
}

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

export function exceptionBody(
  exceptionType: ExceptionType,
  message?: string,
  displayMessages?: readonly string[],
  language: ServerLanguage = 'en',
): ExceptionBody {
  const base = { type: 'exception' as const, exceptionType, displayMessages: displayMessages ?? SERVER_TEXTS[language].exceptions[exceptionType] };
  return message === undefined ? base : { ...base, message };
}

export type ServerLanguage = 'cs' | 'en';

/** Every text the server sends, per language. */
export interface ServerTexts {
  readonly prompt: readonly string[];
  depositBoxOpen(n: number): string[];
  depositClosing(n: number): string[];
  pickupBoxOpen(ns: readonly number[]): string[];
  pickupClosing(ns: readonly number[]): string[];
  cancelled(n: number): string[];
  readonly exceptions: Readonly<Record<ExceptionType, readonly string[]>>;
}

/** "ze schránky 4" or "ze schránek 5, 6". */
const zeSchranek = (ns: readonly number[]): string => (ns.length === 1 ? `ze schránky ${ns[0]}` : `ze schránek ${ns.join(', ')}`);

export const SERVER_TEXTS: Readonly<Record<ServerLanguage, ServerTexts>> = {
  en: {
    prompt: PROMPT_MESSAGES,
    depositBoxOpen: depositBoxOpenMessages,
    depositClosing: depositClosingMessages,
    pickupBoxOpen: pickupBoxOpenMessages,
    pickupClosing: pickupClosingMessages,
    cancelled: cancelledMessages,
    exceptions: EXCEPTION_MESSAGES,
  },
  cs: {
    prompt: ['Naskenujte položku', 'nebo zadejte PIN'],
    depositBoxOpen: (n) => [`Otevírá se schránka ${n}`, 'vložte položku a zavřete'],
    depositClosing: (n) => [`Vložte položku do schránky ${n}`, 'a zavřete dvířka'],
    pickupBoxOpen: (ns) => [ns.length === 1 ? `Otevírá se schránka ${ns[0]}` : `Otevírají se schránky ${ns.join(', ')}`, 'vyzvedněte si položky'],
    pickupClosing: (ns) => [`Vyzvedněte položky ${zeSchranek(ns)}`, 'a zavřete dvířka'],
    cancelled: (n) => ['Zrušeno', `zavřete schránku ${n}`],
    exceptions: {
      AuthenticationException: ['Stanice není oprávněna', 'volejte knihovnu'],
      BadRequestException: ['Neplatný požadavek'],
      UnsupportedMediaTypeException: ['Neplatný požadavek'],
      NotFoundException: ['Neznámý požadavek'],
      MethodNotAllowedException: ['Neznámý požadavek'],
      PayloadTooLargeException: ['Neplatný požadavek'],
      EventIdConflictException: ['Neplatný požadavek'],
      ItemNotFoundException: ['Položka nenalezena', 'obraťte se na obsluhu'],
      ItemAlreadyDepositedException: ['Položka už je uložena'],
      InvalidPinException: ['Neplatný PIN', 'zkuste to znovu'],
      StationUnavailableException: ['Stanice nedostupná', 'zkuste to později'],
      StationDisabledException: ['Stanice není dostupná'],
      ActionInProgressException: ['Nejprve zavřete schránku'],
      CannotCancelException: ['Nelze zrušit'],
      IllegalStateException: ['Něco se pokazilo', 'zkuste to znovu'],
    },
  },
};

/**
 * The language to answer in: of the languages in Accept-Language (RFC 9110: tags with optional
 * q-values), the best-weighted one the server has; English when none is.
 */
export function serverLanguage(acceptLanguage: string | undefined): ServerLanguage {
  let best: { lang: ServerLanguage; q: number } | null = null;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const lang = tag === 'cs' || tag.startsWith('cs-') ? 'cs' : tag === 'en' || tag.startsWith('en-') ? 'en' : null;
    if (lang !== null && Number.isFinite(q) && q > 0 && (best === null || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? 'en';
}
