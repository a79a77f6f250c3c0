/**
 * The touchscreen kiosk page (800×480, the official 7" panel, or larger): the display lines large,
 * white on black, and a PIN keypad whose keys are posted to the station as a hardware keypad's
 * keys. Keys are at least 80 px (≈ 15 mm on the 7" panel; the floor for a fingertip is 9 mm ≈
 * 47 px). Text wraps, it is never cut. No external resources: the station may have no internet.
 */

export const KIOSK_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, user-scalable=no">
<title>Pickup station</title>
<link rel="stylesheet" href="/kiosk.css">
<script src="/kiosk.js" defer></script>
</head>
<body>
<main>
  <section id="screen" aria-live="polite"><div id="lines"></div><div id="offline" hidden>Connecting…</div></section>
  <section id="keypad" aria-label="PIN keypad">
    <button class="key" data-key="1">1</button><button class="key" data-key="2">2</button><button class="key" data-key="3">3</button>
    <button class="key" data-key="4">4</button><button class="key" data-key="5">5</button><button class="key" data-key="6">6</button>
    <button class="key" data-key="7">7</button><button class="key" data-key="8">8</button><button class="key" data-key="9">9</button>
    <button class="key fn" data-key="backspace" aria-label="Backspace">⌫</button><button class="key" data-key="0">0</button><button class="key ok" data-key="enter" aria-label="Enter">OK</button>
    <button class="key fn wide" data-key="clear" aria-label="Clear">C</button>
    <button id="cancel" class="key cancel wide" hidden>✕</button>
  </section>
</main>
</body>
</html>
`;

export const KIOSK_CSS = `
* { box-sizing: border-box; margin: 0; padding: 0; }
html, body { height: 100%; background: #000; color: #fff; font-family: "DejaVu Sans", "Noto Sans", sans-serif;
  -webkit-user-select: none; user-select: none; overflow: hidden; touch-action: manipulation; }
main { display: grid; grid-template-columns: 1fr minmax(300px, 45vw); height: 100vh; gap: 12px; padding: 12px; }
#screen { display: flex; flex-direction: column; justify-content: center; border: 3px solid #fff; border-radius: 10px;
  padding: 16px; overflow: hidden; min-width: 0; }
#lines { font-size: clamp(22px, 4.4vw, 64px); font-weight: 700; line-height: 1.3; overflow-wrap: anywhere; }
#lines div { min-height: 1.3em; }
#offline { font-size: 22px; color: #ff0; margin-top: 12px; }
#keypad { display: grid; grid-template-columns: repeat(3, 1fr); grid-auto-rows: 1fr; gap: 8px; min-height: 0; }
.key { font: inherit; font-size: clamp(28px, 4.5vw, 56px); font-weight: 700; color: #fff; background: #222;
  border: 3px solid #fff; border-radius: 10px; min-height: 60px; min-width: 60px; }
.key:active { background: #fff; color: #000; }
.key.ok { background: #064; }
.key.fn { background: #333; }
.key.cancel { background: #800; }
.key.wide { grid-column: span 3; }
#keypad:has(#cancel:not([hidden])) .key[data-key="clear"] { grid-column: span 1; }
#keypad:has(#cancel:not([hidden])) #cancel { grid-column: span 2; }
[hidden] { display: none !important; }
`;

export const KIOSK_JS = `'use strict';
const linesEl = document.getElementById('lines');
const offline = document.getElementById('offline');
const cancel = document.getElementById('cancel');
function render(state) {
  linesEl.replaceChildren(...state.lines.map((l) => { const d = document.createElement('div'); d.textContent = l; return d; }));
  cancel.hidden = !state.cancel;
  cancel.textContent = state.cancelLabel;
}
function post(path, body) {
  fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).catch(() => undefined);
}
for (const b of document.querySelectorAll('[data-key]')) b.addEventListener('click', () => post('/key', { key: b.dataset.key }));
cancel.addEventListener('click', () => post('/cancel', {}));
const events = new EventSource('/events');
events.addEventListener('state', (e) => { offline.hidden = true; render(JSON.parse(e.data)); });
events.addEventListener('error', () => { offline.hidden = false; });
document.addEventListener('contextmenu', (e) => e.preventDefault());
`;
