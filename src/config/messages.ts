/**
 * The station's own texts (server texts come with each command), one complete set per locale.
 * `messages.locale` picks the set; any key of `messages` overrides that text alone. Every text of
 * both sets fits a 20×4 character display after transliteration to ASCII without cutting a word
 * (test/unit/config-messages.test.ts renders each one).
 *
 * Placeholders: `{mask}` one `*` per typed digit; `{box}` box numbers ("3" or "3, 5"); `{time}` a
 * countdown "m:ss".
 */

export const LOCALES = ['cs', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The texts the station runs with: the set of `messages.locale`, any key overridden (config `messages`). */
export type Messages = Texts & { readonly locale: Locale };

export interface Texts {
  /** Until the first /state is answered. */
  readonly starting: readonly string[];
  /** Idle, until the server sends its own prompt. */
  readonly prompt: readonly string[];
  /** Second line while a PIN is typed; `{mask}`. */
  readonly pinEntry: string;
  readonly pinLength: readonly string[];
  /** An event is in flight (after a scan or a PIN, until the answer). */
  readonly busy: readonly string[];
  readonly boxOpen: readonly string[];
  readonly cannotCancel: readonly string[];
  readonly unreadable: readonly string[];
  readonly serverError: readonly string[];
  /** Deactivated mode: the server did not answer. */
  readonly stationOff: readonly string[];
  /** station-disable without texts of its own. */
  readonly disabled: readonly string[];
  /** While the station stops (drain): new input is refused. */
  readonly restarting: readonly string[];
  /** After a restart that cut a deposit or pickup short before its box opened. */
  readonly restartedNotOpened: readonly string[];
  /** After a restart that cut a deposit or pickup short once its box had opened. */
  readonly restartedOpened: readonly string[];
  /** The tamper alarm: customer input refused. */
  readonly tamper: readonly string[];
  /** A door left open (door-ajar alarm); `{box}`. */
  readonly doorAjar: readonly string[];
  /** The keypad locked after wrong PINs; `{time}` counts down. */
  readonly pinLockout: readonly string[];
  /** A technician opens a box; `{box}`. */
  readonly serviceOpen: string;
}

const en: Texts = {
  starting: ['Starting...'],
  prompt: ['Scan an item', 'or enter your PIN'],
  pinEntry: 'PIN: {mask}',
  pinLength: ['The PIN has 6 digits'],
  busy: ['Please wait...'],
  boxOpen: ['Please close the box first'],
  cannotCancel: ['This cannot be cancelled'],
  unreadable: ['Code not readable', 'please scan again'],
  serverError: ['Something went wrong', 'please try again'],
  stationOff: ['Station out of service', 'sorry for the inconvenience'],
  disabled: ['Station not available'],
  restarting: ['Station restarting', 'please wait a moment'],
  restartedNotOpened: ['The station restarted', 'please scan or enter your PIN again'],
  restartedOpened: ['The station restarted', 'please close the box when done'],
  tamper: ['Station out of service', 'please ask the staff'],
  doorAjar: ['Please close box {box}'],
  pinLockout: ['Too many wrong PINs', 'try again in {time}'],
  serviceOpen: 'Service: box {box}',
};

const cs: Texts = {
  starting: ['Spouštění...'],
  prompt: ['Naskenujte položku', 'nebo zadejte PIN'],
  pinEntry: 'PIN: {mask}',
  pinLength: ['PIN má 6 číslic'],
  busy: ['Čekejte prosím...'],
  boxOpen: ['Nejprve zavřete schránku'],
  cannotCancel: ['Nelze zrušit'],
  unreadable: ['Kód nelze přečíst', 'naskenujte znovu'],
  serverError: ['Něco se pokazilo', 'zkuste to znovu'],
  stationOff: ['Stanice mimo provoz', 'omlouváme se'],
  disabled: ['Stanice není dostupná'],
  restarting: ['Stanice se restartuje', 'chvíli strpení'],
  restartedNotOpened: ['Stanice se restartovala', 'naskenujte nebo zadejte PIN znovu'],
  restartedOpened: ['Stanice se restartovala', 'až budete hotovi, zavřete schránku'],
  tamper: ['Stanice mimo provoz', 'obraťte se na obsluhu'],
  doorAjar: ['Zavřete prosím', 'schránku {box}'],
  pinLockout: ['Příliš mnoho', 'chybných PINů,', 'zkuste to za {time}'],
  serviceOpen: 'Servis: schránka {box}',
};

export const TEXTS: Readonly<Record<Locale, Texts>> = { cs, en };

/** Accept-Language sent when `server.acceptLanguage` is not set. */
export const ACCEPT_LANGUAGE: Readonly<Record<Locale, string>> = { cs: 'cs-CZ, cs;q=0.9', en: 'en' };
