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
 */
import type { AssistTexts } from '../../config/messages.js';

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

/*
 * Colours, each pair's contrast by WCAG's relative luminance: white on black 21:1; white on the OK
 * key's #005c3d 8.1:1, on cancel's #8a0000 10.1:1, on #222 15.9:1, on #333 12.6:1; the high-contrast
 * theme's #ffff00 on black 19.6:1. The focus ring #4db8ff: 9.6:1 on black, at least 3:1 on every
 * key's colour (it is drawn inside the key). test/e2e/kiosk.test.ts measures them in the page.
 */
export const KIOSK_CSS = `
* { box-sizing: border-box; margin: 0; padding: 0; animation: none !important; transition: none !important; }
html, body { height: 100%; background: #000; color: #fff; font-family: "DejaVu Sans", "Noto Sans", sans-serif;
  -webkit-user-select: none; user-select: none; overflow: hidden; touch-action: manipulation; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 330px; grid-template-rows: minmax(0, 1fr) auto auto;
  height: 100vh; gap: 8px; padding: 8px; }
#screen { grid-column: 1; grid-row: 1; display: flex; flex-direction: column; justify-content: center; border: 3px solid #fff;
  border-radius: 10px; padding: 10px 14px; overflow: hidden; min-width: 0; min-height: 0; }
#lines { font-size: 36px; font-weight: 700; line-height: 1.25; overflow-wrap: anywhere; }
#lines div { min-height: 1.25em; }
#offline { font-size: 22px; color: #ffff00; margin-top: 10px; }
#more-wrap { grid-column: 1; grid-row: 2; }
#assist { grid-column: 1; grid-row: 3; display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 8px; }
#keypad { grid-column: 2; grid-row: 1 / span 3; display: grid; grid-template-columns: repeat(3, 1fr); grid-auto-rows: 1fr; gap: 8px; min-height: 0; }
button { font: inherit; font-weight: 700; color: #fff; background: #222; border: 3px solid #fff; border-radius: 10px;
  min-height: 52px; min-width: 52px; overflow-wrap: anywhere; line-height: 1.15; }
#assist button { font-size: 18px; padding: 2px 4px; }
#assist button[aria-pressed="true"] { background: #fff; color: #000; }
.key { font-size: 40px; }
.key.ok { background: #005c3d; }
.key.fn { background: #333; }
.key.cancel { background: #8a0000; font-size: 26px; grid-column: span 2; }
#keypad:not(:has(#cancel:not([hidden]))) .key[data-key="clear"] { grid-column: span 3; }
.wide-button { width: 100%; min-height: 60px; font-size: 26px; background: #ffff00; color: #000; border-color: #ffff00; }
button:active { background: #fff; color: #000; }
button:focus-visible { outline: 5px solid #4db8ff; outline-offset: -9px; }
[hidden] { display: none !important; }
/* Read by screen readers, not shown. */
.unseen { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }

body.large #lines { font-size: 52px; }
body.large #assist button { font-size: 22px; }
body.large .key { font-size: 52px; }
body.large .key.cancel { font-size: 32px; }
body.large .wide-button { font-size: 32px; }

body.contrast, body.contrast #screen { background: #000; color: #ffff00; border-color: #ffff00; }
body.contrast #screen { border-width: 5px; }
body.contrast button, body.contrast .key.ok, body.contrast .key.fn, body.contrast .key.cancel {
  background: #000; color: #ffff00; border: 5px solid #ffff00; }
body.contrast #assist button[aria-pressed="true"], body.contrast button:active, body.contrast .wide-button { background: #ffff00; color: #000; }
body.contrast #offline { color: #ffff00; }
body.contrast button:focus-visible { outline-color: #fff; }
`;

export const KIOSK_JS = `'use strict';
const $ = (id) => document.getElementById(id);
const linesEl = $('lines');
const offline = $('offline');
const cancel = $('cancel');
const moreTime = $('more-time');
const LINE_SIZE = { normal: 36, large: 52, min: 16 };
let words = null;
let session = null;
let holdMs = 2000;
let online = false;

// The secret comes once, in the fragment; it stays in this tab only, and leaves the address bar.
const fragment = new URLSearchParams(location.hash.slice(1)).get('k');
if (fragment) sessionStorage.setItem('kiosk-secret', fragment);
if (location.hash) history.replaceState(null, '', location.pathname);
const secret = sessionStorage.getItem('kiosk-secret') || '';
const auth = { authorization: 'Bearer ' + secret };

function say(text) {
  offline.textContent = text;
  offline.hidden = false;
}

function applyWords(w) {
  words = w;
  for (const el of document.querySelectorAll('[data-word]')) el.textContent = w[el.dataset.word];
  for (const el of document.querySelectorAll('[data-word-label]')) el.setAttribute('aria-label', (el.dataset.wordPrefix || '') + w[el.dataset.wordLabel]);
  document.title = w.title;
}

/** The lines at the mode's size, stepped down only while they would not fit (never cut). */
function fit() {
  const large = document.body.classList.contains('large');
  let size = large ? LINE_SIZE.large : LINE_SIZE.normal;
  linesEl.style.fontSize = size + 'px';
  const screen = $('screen');
  while (size > LINE_SIZE.min && (screen.scrollHeight > screen.clientHeight + 1 || linesEl.scrollWidth > linesEl.clientWidth + 1)) {
    size -= 2;
    linesEl.style.fontSize = size + 'px';
  }
}

function render(state) {
  linesEl.replaceChildren(...state.lines.map((l) => { const d = document.createElement('div'); d.textContent = l; return d; }));
  cancel.hidden = !state.cancel;
  cancel.textContent = state.cancelLabel;
  moreTime.hidden = !state.moreTime;
  holdMs = state.holdMs;
  if (document.documentElement.lang !== state.lang) document.documentElement.lang = state.lang;
  if (JSON.stringify(words) !== JSON.stringify(state.words)) applyWords(state.words);
  // The patron has gone: the next one starts with the defaults.
  if (session !== null && state.session !== session) setModes(false, false);
  session = state.session;
  fit();
}

function setModes(contrast, large) {
  document.body.classList.toggle('contrast', contrast);
  document.body.classList.toggle('large', large);
  $('contrast').setAttribute('aria-pressed', String(contrast));
  $('large').setAttribute('aria-pressed', String(large));
  fit();
}

function post(path, body) {
  fetch(path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then((r) => { if (r.status === 401) say(words ? words.unauthorised : 'Out of order'); })
    .catch(() => undefined);
}

for (const b of document.querySelectorAll('[data-key]')) {
  let timer = null;
  const release = () => { clearTimeout(timer); timer = null; };
  b.addEventListener('click', () => post('/key', { key: b.dataset.key }));
  b.addEventListener('pointerdown', () => { release(); timer = setTimeout(() => post('/hold', { key: b.dataset.key }), holdMs); });
  for (const end of ['pointerup', 'pointercancel', 'pointerleave']) b.addEventListener(end, release);
}
cancel.addEventListener('click', () => post('/cancel', {}));
moreTime.addEventListener('click', () => post('/assist', { request: 'more-time' }));
$('speech').addEventListener('click', () => post('/assist', { request: 'speech' }));
$('softer').addEventListener('click', () => post('/assist', { request: 'volume-down' }));
$('louder').addEventListener('click', () => post('/assist', { request: 'volume-up' }));
for (const id of ['contrast', 'large']) {
  $(id).addEventListener('click', () => {
    const on = $(id).getAttribute('aria-pressed') !== 'true';
    const contrast = id === 'contrast' ? on : document.body.classList.contains('contrast');
    const large = id === 'large' ? on : document.body.classList.contains('large');
    setModes(contrast, large);
    if (on) post('/assist', { request: 'visual' });
  });
}
document.addEventListener('contextmenu', (e) => e.preventDefault());
window.addEventListener('resize', fit);

/** The live state: one server-sent event per screen, read from a fetch stream; reconnects after any end. */
async function stream() {
  let delay = 500;
  for (;;) {
    try {
      const r = await fetch('/events', { headers: auth, cache: 'no-store' });
      if (r.status === 401) {
        say(words ? words.unauthorised : 'Out of order');
        delay = 5000;
      } else if (r.ok && r.body) {
        delay = 500;
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\\n\\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = block.split('\\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
            if (block.startsWith('event: state') && data) {
              online = true;
              offline.hidden = true;
              render(JSON.parse(data));
            }
          }
        }
      }
    } catch {
      // the station is restarting: try again
    }
    if (online || offline.hidden) say(words ? words.connecting : 'Connecting…');
    online = false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 5000);
  }
}
stream();
`;
