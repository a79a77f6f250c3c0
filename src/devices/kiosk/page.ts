/**
 * The touchscreen kiosk page (800×480, the official 7" panel, or larger), made to WCAG 2.1 AA:
 *
 * - the display lines in a live region (role="status": a screen reader says each new screen), large,
 *   wrapped and never cut (their size steps down only when a long server text would not fit);
 * - every control a labelled button, reachable with Tab in reading order, with a focus ring that
 *   stays visible in both themes; keys at least 80 px (≈ 15 mm on the 7" panel; a fingertip's floor
 *   is 9 mm ≈ 47 px); no label that differs from what the button shows;
 * - two themes, both at least 7:1: white on black with coloured keys, and a high-contrast one
 *   (yellow on black, thick borders, no meaning in colour), and a large-text mode — switched on the
 *   page by the patron, kept until the station says the patron has gone (the state's `session`);
 * - `lang` from the station's locale, the page's own words from the same catalogue as the station's
 *   texts (src/config/messages.ts);
 * - nothing moves or flashes: no animation, no transition;
 * - a "more time" button while a time limit is about to run out, the speech and volume buttons, and a
 *   key held for the hold time asks for speech, as a held hardware key does.
 *
 * The page proves itself with the kiosk's secret (secret.ts): the kiosk browser opens it with the
 * secret in the URL's fragment (`#k=<secret>`), which the page keeps in its tab's session storage and
 * removes from the address; it sends it as `Authorization: Bearer` with every key and its event
 * stream (read with fetch, because EventSource cannot send a header). No external resources: the
 * station may have no internet.
 *
 * The HTML is made here (it carries the locale's words); its script and style are static files,
 * page/kiosk.js (type-checked against the DOM by page/tsconfig.json, linted with src/) and
 * page/kiosk.css, served as they are and read when the kiosk server is made.
 */
import type { AssistTexts } from '../../config/messages.js';
import { readAsset } from '../../edge/assets.js';

export type KioskWords = AssistTexts['kiosk'];

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page for the station's locale; the state stream updates its words if the locale changes. */
export function kioskHtml(lang: string, w: KioskWords): string {
  const e = escapeHtml;
  const key = (k: string): string => `<button type="button" class="key" data-key="${k}">${k}</button>`;
  return `<!doctype html>
<html lang="${e(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(w.title)}</title>
<link rel="stylesheet" href="/kiosk.css">
<script src="/kiosk.js" defer></script>
</head>
<body>
<main>
  <h1 id="title" class="unseen" data-word="title">${e(w.title)}</h1>
  <section id="screen" role="status" aria-live="polite" aria-atomic="true">
    <div id="lines"></div>
    <p id="offline" hidden>${e(w.connecting)}</p>
  </section>
  <div id="more-wrap"><button type="button" id="more-time" class="wide-button" data-word="moreTime" hidden>${e(w.moreTime)}</button></div>
  <section id="assist" aria-label="${e(w.settings)}" data-word-label="settings">
    <button type="button" id="speech" data-word="speech">${e(w.speech)}</button>
    <button type="button" id="softer" data-word="volumeDown">${e(w.volumeDown)}</button>
    <button type="button" id="louder" data-word="volumeUp">${e(w.volumeUp)}</button>
    <button type="button" id="contrast" aria-pressed="false" data-word="contrast">${e(w.contrast)}</button>
    <button type="button" id="large" aria-pressed="false" data-word="largeText">${e(w.largeText)}</button>
  </section>
  <section id="keypad" aria-label="${e(w.keypad)}" data-word-label="keypad">
    ${key('1')}${key('2')}${key('3')}
    ${key('4')}${key('5')}${key('6')}
    ${key('7')}${key('8')}${key('9')}
    <button type="button" class="key fn" data-key="backspace" aria-label="⌫ ${e(w.backspace)}" data-word-label="backspace" data-word-prefix="⌫ ">⌫</button>${key('0')}<button type="button" class="key ok" data-key="enter" aria-label="OK ${e(w.enter)}" data-word-label="enter" data-word-prefix="OK ">OK</button>
    <button type="button" class="key fn" data-key="clear" aria-label="C ${e(w.clear)}" data-word-label="clear" data-word-prefix="C ">C</button>
    <button type="button" id="cancel" class="key cancel" hidden></button>
  </section>
</main>
</body>
</html>
`;
}

/** The page's static files: script and style, as served. */
export interface KioskAssets {
  readonly js: string;
  readonly css: string;
}

/** The script and style, read from the page's folder (src/edge/assets.ts) each time a kiosk server is made. */
export function kioskAssets(): KioskAssets {
  return { js: readAsset(import.meta.url, 'kiosk.js'), css: readAsset(import.meta.url, 'kiosk.css') };
}
