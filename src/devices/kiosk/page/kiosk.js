// @ts-check
/*
 * The kiosk page's script (served as /kiosk.js; the page and its rules are described in ../page.ts).
 * Plain JavaScript, served as it is here, type-checked against the DOM by ./tsconfig.json (`npm run
 * check`) and linted with the rest of src/.
 */
'use strict';

/**
 * One screen as the station's event stream sends it: the server's own type (../state.ts).
 * @typedef {import('../state.js').KioskState} KioskState
 */

/**
 * An element the page's HTML always has.
 * @param {string} id
 * @returns {HTMLElement}
 */
function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the kiosk page has no #${id}`);
  return el;
}

const linesEl = $('lines');
const offline = $('offline');
const cancel = $('cancel');
const moreTime = $('more-time');
const LINE_SIZE = { normal: 36, large: 52, min: 16 };
/** @type {Record<string, string> | null} */
let words = null;
/** @type {number | null} */
let session = null;
let holdMs = 2000;
let heartbeatMs = 5000;
let online = false;

// The secret comes once, in the fragment; it stays in this tab only, and leaves the address bar.
const fragment = new URLSearchParams(location.hash.slice(1)).get('k');
if (fragment) sessionStorage.setItem('kiosk-secret', fragment);
if (location.hash) history.replaceState(null, '', location.pathname);
const secret = sessionStorage.getItem('kiosk-secret') || '';
const auth = { authorization: 'Bearer ' + secret };

/** @param {string} text */
function say(text) {
  offline.textContent = text;
  offline.hidden = false;
}

/** @param {string} key */
function word(key) {
  return words?.[key] ?? '';
}

/** @param {Record<string, string>} w */
function applyWords(w) {
  words = w;
  for (const el of document.querySelectorAll('[data-word]')) {
    if (el instanceof HTMLElement) el.textContent = w[el.dataset['word'] ?? ''] ?? '';
  }
  for (const el of document.querySelectorAll('[data-word-label]')) {
    if (el instanceof HTMLElement) el.setAttribute('aria-label', (el.dataset['wordPrefix'] || '') + (w[el.dataset['wordLabel'] ?? ''] ?? ''));
  }
  document.title = w['title'] ?? document.title;
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

/** @param {KioskState} state */
function render(state) {
  linesEl.replaceChildren(
    ...state.lines.map((l) => {
      const d = document.createElement('div');
      d.textContent = l;
      return d;
    }),
  );
  cancel.hidden = !state.cancel;
  cancel.textContent = state.cancelLabel;
  moreTime.hidden = !state.moreTime;
  holdMs = state.holdMs;
  heartbeatMs = state.heartbeatMs;
  if (document.documentElement.lang !== state.lang) document.documentElement.lang = state.lang;
  if (JSON.stringify(words) !== JSON.stringify(state.words)) applyWords(state.words);
  // The patron has gone: the next one starts with the defaults.
  if (session !== null && state.session !== session) setModes(false, false);
  session = state.session;
  fit();
}

/**
 * @param {boolean} contrast
 * @param {boolean} large
 */
function setModes(contrast, large) {
  document.body.classList.toggle('contrast', contrast);
  document.body.classList.toggle('large', large);
  $('contrast').setAttribute('aria-pressed', String(contrast));
  $('large').setAttribute('aria-pressed', String(large));
  fit();
}

/**
 * @param {string} path
 * @param {object} body
 */
function post(path, body) {
  fetch(path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then((r) => {
      if (r.status === 401) say(words ? word('unauthorised') : 'Out of order');
    })
    .catch(() => undefined);
}

for (const b of document.querySelectorAll('[data-key]')) {
  if (!(b instanceof HTMLElement)) continue;
  const key = b.dataset['key'] ?? '';
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const release = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  b.addEventListener('click', () => post('/key', { key }));
  b.addEventListener('pointerdown', () => {
    release();
    timer = setTimeout(() => post('/hold', { key }), holdMs);
  });
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

/**
 * A key the page keeps from the browser: any chord with Ctrl, Alt or Meta, a function key, the
 * context-menu key and a keyboard's browser keys. The page needs none of them, and Chromium acts on
 * each one the page leaves to it: F12 and Ctrl+Shift+I put the policy's modal "DevTools not allowed"
 * dialog over the page until someone taps OK, F7 asks about caret browsing, F5 reloads. Tab,
 * Shift+Tab, Enter, Space, arrows and characters stay the page's: every control is reached and
 * pressed by keyboard (WCAG 2.1.1).
 * @param {KeyboardEvent} e
 */
function keptFromBrowser(e) {
  return e.ctrlKey || e.altKey || e.metaKey || /^F\d{1,2}$/.test(e.key) || e.key === 'ContextMenu' || e.key.startsWith('Browser');
}
for (const type of ['keydown', 'keyup']) {
  window.addEventListener(
    type,
    (e) => {
      if (e instanceof KeyboardEvent && keptFromBrowser(e)) e.preventDefault();
    },
    { capture: true },
  );
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let beat;
let framePending = false;
/**
 * The page tells the station it is on the screen: a heartbeat sent from an animation frame, which
 * a page whose renderer died or hangs, or that is not drawn, never gets; only while its event
 * stream is open. The first goes as soon as the stream brings its first state, then one every
 * `heartbeatMs`.
 */
function heartbeat() {
  clearTimeout(beat);
  beat = setTimeout(heartbeat, heartbeatMs);
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(() => {
    framePending = false;
    if (online) post('/heartbeat', {});
  });
}

/**
 * The state events in `buf` (server-sent events, blocks ending in a blank line) and what is left of it.
 * @param {string} buf
 * @returns {{ states: KioskState[], rest: string }}
 */
function takeStates(buf) {
  /** @type {KioskState[]} */
  const states = [];
  let i;
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i);
    buf = buf.slice(i + 2);
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('');
    if (!block.startsWith('event: state') || !data) continue;
    const parsed = /** @type {unknown} */ (JSON.parse(data));
    states.push(/** @type {KioskState} */ (parsed));
  }
  return { states, rest: buf };
}

/** The live state: one server-sent event per screen, read from a fetch stream; reconnects after any end. */
async function stream() {
  let delay = 500;
  for (;;) {
    try {
      const r = await fetch('/events', { headers: auth, cache: 'no-store' });
      if (r.status === 401) {
        say(words ? word('unauthorised') : 'Out of order');
        delay = 5000;
      } else if (r.ok && r.body) {
        delay = 500;
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const { states, rest } = takeStates(buf + value);
          buf = rest;
          for (const state of states) {
            const first = !online;
            online = true;
            offline.hidden = true;
            render(state);
            if (first) heartbeat();
          }
        }
      }
    } catch {
      // the station is restarting: try again
    }
    if (online || offline.hidden) say(words ? word('connecting') : 'Connecting…');
    online = false;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 5000);
  }
}
void stream();
