/**
 * The station's own texts (server texts come with each command), one complete set per locale.
 * `messages.locale` picks the set; any key of `messages` overrides that text alone. Every text of
 * both sets fits a 20×4 character display after transliteration to ASCII without cutting a word
 * (test/unit/config-messages.test.ts renders each one).
 *
 * Placeholders: `{mask}` one `*` per typed digit; `{box}` box numbers ("3" or "3, 5"); `{time}` a
 * countdown "m:ss"; `{missing}` and `{total}` parts of an item in several parts.
 */

export const LOCALES = ['cs', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The texts the station runs with: the set of `messages.locale`, any key overridden (config `messages`). */
export type Messages = Texts & { readonly locale: Locale; readonly assist: AssistTexts };

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
  /** A tag on the RFID reader that has no usable library data (blank, damaged, unknown format). */
  readonly rfidUnreadable: readonly string[];
  /** Two different items on the RFID reader at once. */
  readonly rfidOneItem: readonly string[];
  /** Some parts of an item in several parts are not on the reader yet; `{missing}` of `{total}`. */
  readonly rfidSetIncomplete: readonly string[];
  /** The deposited item's tag says careful handling (ISO 28560-1 media format 5): one line for the librarian. */
  readonly rfidCarefulHandling: string;
  /** The deposited item's tag says small item (media format 6): one line for the librarian. */
  readonly rfidSmallItem: string;
  /** The security bit could not be cleared yet: the item must go back on the reader. */
  readonly rfidPutBack: readonly string[];
  /** The security bit could not be cleared in time: the exit gates may alarm for this item. */
  readonly rfidSecurityFailed: readonly string[];
  /**
   * A time limit is about to run out (a half-typed PIN, a box left open): shown above what it
   * concerns, until the patron presses a key for more time or the limit runs out.
   */
  readonly moreTime: readonly string[];
}

/**
 * What the station says and labels beyond its screens: speech's instructions and the spoken form of
 * what a screen shows in a way a voice cannot read (the PIN's mask, a countdown), and the kiosk
 * page's controls. Placeholders: `{count}` digits typed; `{n}` a number.
 */
export interface AssistTexts {
  /** Spoken when speech starts, and by the speech key at the prompt. */
  readonly instructions: string;
  /** The PIN line as spoken: how many digits are typed, never which. */
  readonly pinTyped: string;
  /** A countdown as spoken, by plural form (en: one, other; cs: one, few, many). */
  readonly seconds: readonly string[];
  readonly minutes: readonly string[];
  /** The kiosk page's own words (its buttons and states), for screen readers and its labels. */
  readonly kiosk: {
    /** The page's title and heading (read by screen readers, not shown). */
    readonly title: string;
    readonly keypad: string;
    readonly backspace: string;
    readonly clear: string;
    readonly enter: string;
    readonly speech: string;
    readonly volumeDown: string;
    readonly volumeUp: string;
    readonly contrast: string;
    readonly largeText: string;
    readonly moreTime: string;
    readonly settings: string;
    readonly connecting: string;
    readonly unauthorised: string;
  };
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
  rfidUnreadable: ['This tag cannot be', 'read - scan the', 'barcode'],
  rfidOneItem: ['One item at a time,', 'please'],
  rfidSetIncomplete: ['Item of {total} parts:', '{missing} missing,', 'place all parts'],
  rfidCarefulHandling: 'Handle with care',
  rfidSmallItem: 'Small item',
  rfidPutBack: ['Put the item back', 'on the reader'],
  rfidSecurityFailed: ['Security not cleared', 'gates may alarm'],
  moreTime: ['For more time', 'press any key'],
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
  rfidUnreadable: ['Štítek nelze přečíst', 'naskenujte čárový', 'kód'],
  rfidOneItem: ['Jen jednu položku', 'najednou, prosím'],
  rfidSetIncomplete: ['Položka o {total} částech:', 'chybí {missing},', 'položte všechny'],
  rfidCarefulHandling: 'Zacházejte opatrně',
  rfidSmallItem: 'Malá položka',
  rfidPutBack: ['Vraťte položku', 'zpět na čtečku'],
  rfidSecurityFailed: ['Ochrana nezrušena,', 'brána může pípat'],
  moreTime: ['Pro více času', 'stiskněte klávesu'],
};

export const TEXTS: Readonly<Record<Locale, Texts>> = { cs, en };

const assistEn: AssistTexts = {
  instructions:
    'Speech is on. Press the speech key to hear the screen again, and the volume keys to make it louder or softer. ' +
    'To pick up, type your six digit PIN and press Enter: each key sounds a tone, your PIN is never spoken. ' +
    'When the station asks if you need more time, press any key.',
  pinTyped: 'PIN: {count} of 6 digits typed',
  seconds: ['{n} second', '{n} seconds'],
  minutes: ['{n} minute', '{n} minutes'],
  kiosk: {
    title: 'Library pickup station',
    keypad: 'PIN keypad',
    backspace: 'Delete last digit',
    clear: 'Clear PIN',
    enter: 'Enter',
    speech: 'Speech',
    volumeDown: 'Softer',
    volumeUp: 'Louder',
    contrast: 'High contrast',
    largeText: 'Large text',
    moreTime: 'More time',
    settings: 'Screen and sound',
    connecting: 'Connecting…',
    unauthorised: 'Out of order: please ask the staff',
  },
};

const assistCs: AssistTexts = {
  instructions:
    'Hlasový výstup je zapnutý. Tlačítkem řeči si obrazovku poslechnete znovu, tlačítky hlasitosti ji zesílíte nebo zeslabíte. ' +
    'Pro vyzvednutí zadejte šestimístný PIN a stiskněte Enter: každá klávesa zazní tónem, PIN se nikdy nevyslovuje. ' +
    'Když se stanice zeptá, zda potřebujete víc času, stiskněte libovolnou klávesu.',
  pinTyped: 'PIN: zadáno {count} ze 6 číslic',
  seconds: ['{n} sekundu', '{n} sekundy', '{n} sekund'],
  minutes: ['{n} minutu', '{n} minuty', '{n} minut'],
  kiosk: {
    title: 'Výdejní box knihovny',
    keypad: 'Klávesnice pro PIN',
    backspace: 'Smazat poslední číslici',
    clear: 'Smazat PIN',
    enter: 'Potvrdit',
    speech: 'Řeč',
    volumeDown: 'Tišeji',
    volumeUp: 'Hlasitěji',
    contrast: 'Vysoký kontrast',
    largeText: 'Velké písmo',
    moreTime: 'Více času',
    settings: 'Obrazovka a zvuk',
    connecting: 'Připojování…',
    unauthorised: 'Mimo provoz: obraťte se prosím na obsluhu',
  },
};

export const ASSIST_TEXTS: Readonly<Record<Locale, AssistTexts>> = { cs: assistCs, en: assistEn };

/** Accept-Language sent when `server.acceptLanguage` is not set. */
export const ACCEPT_LANGUAGE: Readonly<Record<Locale, string>> = { cs: 'cs-CZ, cs;q=0.9', en: 'en' };
