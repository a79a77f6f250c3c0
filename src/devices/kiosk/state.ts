/**
 * One screen of the kiosk page as the station's event stream sends it: the one type both sides
 * read. The server (server.ts) sends it; the page's script (page/kiosk.js) takes its typedef from
 * here, and page/tsconfig.json checks the script against it — so neither can change the shape
 * without the other failing `npm run check`. No imports: the page's type check reads this file with
 * the DOM's types only.
 */
export interface KioskState {
  readonly lines: readonly string[];
  readonly cancel: boolean;
  readonly cancelLabel: string;
  /** A time limit is about to run out: the page shows its "more time" button. */
  readonly moreTime: boolean;
  /** Counts the patrons who have gone: when it changes, the page's settings go back to the defaults. */
  readonly session: number;
  readonly lang: string;
  readonly words: Readonly<Record<string, string>>;
  /** How long a key is held to ask for speech. */
  readonly holdMs: number;
  /** How often the page sends its heartbeat (page-watch.ts): it tells the station it is on the screen. */
  readonly heartbeatMs: number;
}
