#!/usr/bin/env node
// In the guest: what Chromium made of its managed policy, read from a second, headless Chromium's
// chrome://policy page over its DevTools port (the kiosk's own Chromium has no such port, and
// `--dump-dom chrome://policy` prints the page before it has asked for the values).
//
//   node chrome-policy.mjs PORT URL     prints one JSON line: {"url", "blocked", "policies"}
//
// It navigates the first tab to URL. A page the policy blocks is Chromium's error page
// (chrome-error://chromewebdata/, net::ERR_BLOCKED_BY_ADMINISTRATOR): "blocked" true, no policies.
// On chrome://policy it asks the page's own back end for the values (the message the page's
// "Reload policies" uses, `getPolicyValues`): every policy Chromium applied, its value, its source
// and level, and the errors or warnings it found in it (an unknown name, a wrong type).
//
// It needs policy-rows.mjs beside it.
import { POLICY_ROWS } from './policy-rows.mjs';

const [port, url] = process.argv.slice(2);
if (!port || !url) {
  console.error('usage: chrome-policy.mjs PORT URL');
  process.exit(2);
}
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function json(path, method = 'GET') {
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(base + path, { method });
      return await r.json();
    } catch (e) {
      if (i > 120) throw e;
      await sleep(1000);
    }
  }
}

// The first page (Chromium was started on about:blank); navigated there over the protocol
// (/json/new does not open chrome:// pages).
let target;
for (let i = 0; ; i++) {
  target = (await json('/json/list')).find((t) => t.type === 'page' && t.url === 'about:blank');
  if (target !== undefined) break;
  if (i > 120) throw new Error('no about:blank page to drive');
  await sleep(1000);
}
// Node 22 and later (the release ships Node 24) have WebSocket built in.
const ws = new globalThis.WebSocket(target.webSocketDebuggerUrl);
await new Promise((res, rej) => {
  ws.onopen = res;
  ws.onerror = rej;
});
let id = 0;
const pending = new Map();
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id !== undefined && pending.has(msg.id)) {
    pending.get(msg.id)(msg);
    pending.delete(msg.id);
  }
};
const call = (method, params = {}) =>
  new Promise((res) => {
    const n = ++id;
    pending.set(n, res);
    ws.send(JSON.stringify({ id: n, method, params }));
  });
const evaluate = async (expression) => (await call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result?.result?.value;

await call('Page.navigate', { url });
await sleep(1000);
// The page loads; give a slow board time.
let where = '';
for (let i = 0; i < 120; i++) {
  where = await evaluate('location.href + " " + document.readyState');
  if (typeof where === 'string' && !where.endsWith(' loading') && !where.startsWith('about:blank')) break;
  await sleep(1000);
}
const href = where.split(' ')[0];
const blocked =
  href.startsWith('chrome-error:') || (await evaluate('document.body ? document.body.innerText : ""'))?.includes('ERR_BLOCKED_BY_ADMINISTRATOR') === true;
let policies = null;
if (!blocked && href.startsWith('chrome://policy')) {
  // The page's rows, as a person reads them: name, value, source, applies to, level, status.
  for (let i = 0; i < 60 && (policies === null || policies.length === 0); i++) {
    policies = await evaluate(POLICY_ROWS);
    await sleep(1000);
  }
}
const text = blocked
  ? String(await evaluate('document.body ? document.body.innerText : ""'))
      .replace(/\s+/g, ' ')
      .slice(0, 300)
  : '';
console.log(JSON.stringify({ url: href, blocked, text, policies }));
ws.close();
process.exit(0);
