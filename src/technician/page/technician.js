// @ts-check
/*
 * The technician page's script (served as /technician.js; the page and its rules are described in
 * ../page.ts). Plain JavaScript, served as it is here, type-checked by ./tsconfig.json against the
 * DOM and against the server's own types of what it reads — the status body and the live stream's
 * events — (`npm run check`), and linted with the rest of src/.
 */
'use strict';

/**
 * @typedef {import('../status.js').StatusBody} StatusBody
 * @typedef {import('../status.js').EventView} EventView
 * @typedef {import('../../supervisor/observe.js').StreamEvent} StreamEvent
 * @typedef {Pick<EventView, 'endpoint' | 'outcome' | 'attempts' | 'ms' | 'eventId' | 'traceIds'>} EventLine
 * @typedef {{ method: string, path: string, body?: unknown }} Pending
 */

const KEY = 'technicianToken';

/**
 * An element the page's HTML always has.
 * @param {string} id
 * @returns {HTMLElement}
 */
function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the technician page has no #${id}`);
  return el;
}

/**
 * An input field of the page.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
function field(id) {
  const el = $(id);
  if (!(el instanceof HTMLInputElement)) throw new Error(`#${id} is not an input`);
  return el;
}

/** @returns {HTMLDialogElement} */
function dialog() {
  const el = $('confirm');
  if (!(el instanceof HTMLDialogElement)) throw new Error('#confirm is not a dialog');
  return el;
}

/** @type {{ status: StatusBody | null, statusAt: number, abort: AbortController | null, retry: number, refreshTimer: ReturnType<typeof setTimeout> | undefined, alarmSince: Record<string, string> }} */
const state = { status: null, statusAt: 0, abort: null, retry: 0, refreshTimer: undefined, alarmSince: {} };
/** @type {Record<string, string>} */
const ALARM_LABEL = {
  'forced-open': 'forced open',
  'door-ajar': 'door ajar',
  tamper: 'tamper',
  'pin-lockout': 'PIN lock-out',
  'unknown-usb': 'unknown USB device',
};

function token() {
  return sessionStorage.getItem(KEY);
}

/**
 * @param {string} tag
 * @param {string} [cls]
 * @param {string} [text]
 */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** @param {string} iso */
function clock(iso) {
  try {
    return new Date(iso).toLocaleTimeString();
  } catch {
    return iso;
  }
}

/** @param {number | null | undefined} ms */
function age(ms) {
  if (ms === null || ms === undefined) return 'never';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

/**
 * A call of the port's API with the token; rejects with the answer's message.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${token() ?? ''}` };
  /** @type {RequestInit} */
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init).then((res) =>
    res.text().then((text) => {
      /** @type {{ message?: string } | null} */
      let data = null;
      try {
        data = text ? /** @type {{ message?: string }} */ (JSON.parse(text)) : null;
      } catch {
        data = { message: text };
      }
      if (res.status === 401) {
        signOut('Token refused.');
        throw new Error('token refused');
      }
      if (!res.ok) throw new Error(data?.message || `HTTP ${res.status}`);
      return data;
    }),
  );
}

// --- rendering ------------------------------------------------------------------------------

/**
 * Failed logins on a console (a keyboard at the screen, a serial cable in the cabinet).
 * @param {StatusBody['consoleLogins']} c
 */
function consoleLoginsText(c) {
  if (!c) return 'not watched';
  if (c.problem) return `cannot be watched: ${c.problem}`;
  const text = c.failed === 0 ? 'no failed login since start' : `${c.failed}${c.failed === 1 ? ' failed login' : ' failed logins'} since start`;
  return c.last ? `${text} · last on ${c.last.line} at ${c.last.at}` : text;
}

/** @param {StatusBody} s */
function renderStatus(s) {
  state.status = s;
  state.statusAt = performance.now();
  $('station-id').textContent = s.stationId;
  $('version').textContent = `${s.version} · ${s.hardware} hardware`;
  $('who').textContent = `${s.technician.name} (${s.technician.scope})`;
  renderAbout(s.version, s.vendor);
  renderMode(s.mode, s.service);
  $('tamper').textContent = s.tamper ? `${s.tamper.open ? 'OPEN' : 'closed'} · ${s.tamper.name}` : 'none fitted';
  $('usb').textContent = s.usb
    ? `${
        s.usb.unknown.length === 0
          ? 'none plugged in'
          : s.usb.unknown.map((d) => `${d.vendorId}:${d.productId} on port ${d.port}${d.product ? ` (${d.product})` : ''}`).join('; ')
      } · ${s.usb.seenTotal} since start · ${s.usb.policy}`
    : 'not watched';
  renderAlarms(s);
  $('console-logins').textContent = consoleLoginsText(s.consoleLogins);
  const faults = Object.keys(s.faults);
  $('faults').textContent = faults.length ? faults.map((k) => `${k}: ${s.faults[k] ?? ''}`).join('; ') : 'none';
  // Why the last event failed, as the fault matrix names it (unanswered: cause, exception, refused).
  const f = s.lastFailure;
  $('last-failure').textContent = f ? `/${f.endpoint} ${f.reason} · ${f.attempts}${f.attempts === 1 ? ' attempt · ' : ' attempts · '}${age(f.ageMs)}` : 'none';
  $('config-file').textContent = configFileText(s.configFile);
  $('inflight').textContent = s.inFlight ? `/${s.inFlight.endpoint}${s.inFlight.eventId ? ` ${s.inFlight.eventId}` : ''}` : 'nothing';
  renderDisplay(s.display);
  // The last tags each host-mode RFID reader read: masked UID, data model or why it is unusable.
  const readers = s.rfid.readers;
  $('rfid-tags').textContent =
    readers.length === 0
      ? 'no RFID reader'
      : readers
          .map((r) => {
            // Masked UID, data model or why it is unusable, media format, masked owner.
            const tags = r.lastTags.map((t) => `${t.uid} ${t.problem || t.model || ''}${t.media ? ` ${t.media}` : ''}${t.owner ? ` owner ${t.owner}` : ''}`);
            return `${r.name}: ${tags.length ? tags.slice(-5).reverse().join(', ') : 'none yet'} · ${r.tagsRead} read`;
          })
          .join('; ');
  const devs = $('devices');
  devs.textContent = '';
  for (const d of s.devices) devs.appendChild(el('li', d.ok ? '' : 'bad', d.name + (d.ok ? '' : ` — ${d.detail || 'not working'}`)));
  renderBoxes(s.boxes);
  $('timeline').textContent = '';
  for (const e of s.events) addEvent(e);
  const service = s.technician.scope === 'service';
  for (const b of document.querySelectorAll('#actions button, .box button')) if (b instanceof HTMLButtonElement) b.disabled = !service;
  tickContact();
}

/**
 * Which config version runs; a file edited and not reloaded; keys waiting for a process restart.
 * @param {StatusBody['configFile']} c
 */
function configFileText(c) {
  if (c.path === null) return 'built in';
  const parts = [`version ${c.running || '?'}`];
  if (c.onDisk === null) parts.push('the file cannot be read now');
  else if (c.onDisk !== c.running) parts.push(`the file on disk (${c.onDisk}) is not reloaded`);
  if (c.reloading) parts.push('reloading');
  if (c.restartNeeded.length) parts.push(`RESTART NEEDED for ${c.restartNeeded.join(', ')}`);
  return parts.join(' · ');
}

/**
 * The release's vendor statements (security contact, support period): the same words as stationctl.
 * @param {string} version
 * @param {StatusBody['vendor']} v
 */
function renderAbout(version, v) {
  $('about-version').textContent = version;
  let support;
  if (v.kind === 'development') support = 'development build: no support period (not a release)';
  else if (v.kind !== 'release' || v.supportDaysLeft === null) support = `UNKNOWN: ${v.problem ?? 'no support period'}`;
  else if (v.supportDaysLeft < 0) support = `ENDED on ${v.supportUntil ?? '?'}: no more security fixes; upgrade to a supported release line`;
  else
    support = `until ${v.supportUntil ?? '?'} (${v.supportDaysLeft}${v.supportDaysLeft === 1 ? ' day' : ' days'} left)${v.supportDaysLeft <= 90 ? ': ENDS SOON' : ''}`;
  $('about-support').textContent = support;
  $('about-contact').textContent = v.securityContact || 'none (development build)';
}

/**
 * @param {StatusBody['mode']} mode
 * @param {boolean} service
 */
function renderMode(mode, service) {
  $('mode').textContent = mode;
  $('mode-badge').textContent = `mode ${mode}`;
  $('mode-badge').className = `badge ${mode === 'idle' ? 'ok' : mode === 'deactivated' || mode === 'disabled' ? 'bad' : 'warn'}`;
  $('service').textContent = service ? 'ON (station reports DOWN "service")' : 'off';
  $('service-badge').classList.toggle('hidden', !service);
}

/** @param {StatusBody['alarms'][number]} a */
function alarmKey(a) {
  return `${a.kind}:${a.boxId || ''}`;
}

/** @param {number} ms */
function mmss(ms) {
  const t = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

/**
 * Every alarm in force, and journal trouble: a journal not being kept (ok false), or its last
 * problem (damaged at start and set aside, a failed write).
 * @param {StatusBody} s
 */
function renderAlarms(s) {
  const list = $('alarm-list');
  list.textContent = '';
  const items = s.alarms.map((a) => {
    const key = alarmKey(a);
    const since = (state.alarmSince[key] ??= new Date().toISOString());
    return {
      kind: /** @type {string} */ (a.kind),
      label: ALARM_LABEL[a.kind] || a.kind,
      text: a.detail,
      since: /** @type {string | null} */ (since),
      warn: a.kind === 'door-ajar' || a.kind === 'pin-lockout',
    };
  });
  if (s.journal.ok === false || s.journal.problem)
    items.push({
      kind: 'journal',
      label: 'journal trouble',
      text: s.journal.problem || 'the journal cannot be written',
      since: null,
      warn: s.journal.ok !== false,
    });
  for (const it of items) {
    const li = el('li', it.warn ? 'warn' : '');
    li.dataset['kind'] = it.kind;
    li.appendChild(el('span', 'kind', it.label));
    li.appendChild(el('span', 'text', it.text));
    if (it.since) li.appendChild(el('span', 'since', `since ${clock(it.since)}`));
    list.appendChild(li);
  }
  $('alarms').classList.toggle('hidden', items.length === 0);
  $('alarm-badge').classList.toggle('hidden', items.length === 0);
  $('alarm-badge').textContent = items.length === 1 ? 'ALARM' : `${items.length} ALARMS`;
  const t = s.pinThrottle;
  $('pin-throttle').textContent = t.lockout
    ? `LOCKED for ${mmss(t.lockout.remainingMs - (performance.now() - state.statusAt))} (${t.failures} wrong in a row)`
    : `${t.failures} wrong PINs in a row`;
}

/** @param {readonly string[]} lines */
function renderDisplay(lines) {
  $('lcd').textContent = lines.join('\n');
}

/** @param {StatusBody['boxes']} boxes */
function renderBoxes(boxes) {
  const wrap = $('boxes');
  wrap.textContent = '';
  for (const b of boxes) {
    const tile = el('div', 'box');
    tile.id = `box-${b.number}`;
    tile.dataset['id'] = b.id;
    tile.appendChild(el('span', 'num', String(b.number)));
    tile.appendChild(el('span', 'st'));
    const flag = b.alarms.includes('forced-open') ? 'FORCED OPEN' : b.alarms.includes('door-ajar') ? 'AJAR' : '';
    tile.classList.toggle('forced', flag === 'FORCED OPEN');
    tile.classList.toggle('ajar', flag === 'AJAR');
    tile.appendChild(el('span', `flag${flag ? '' : ' hidden'}`, flag));
    if (b.lines) {
      tile.appendChild(el('span', 'lines lock-line', `lock ${b.lines.lock || '—'}`));
      tile.appendChild(el('span', 'lines door-line', `door ${b.lines.door || '—'}`));
    }
    tile.appendChild(el('span', 'last'));
    const btn = el('button', '', 'Open');
    btn.dataset['box'] = String(b.number);
    btn.addEventListener('click', () => {
      confirmThen(`Open box ${b.number}? Its lock is pulsed and the opening is reported to the server.`, 'POST', `/api/boxes/${b.number}/open`);
    });
    tile.appendChild(btn);
    wrap.appendChild(tile);
    setBox(b.number, b.door, b.lockEnergized, b.lastAction);
  }
}

/**
 * @param {number} number
 * @param {string | undefined} door
 * @param {boolean} [energized]
 * @param {{ what: string, at: string } | null} [last]
 */
function setBox(number, door, energized, last) {
  const tile = document.getElementById(`box-${number}`);
  if (!tile) return;
  const st = tile.querySelector('.st');
  if (door) {
    tile.classList.toggle('open', door === 'OPEN');
    tile.classList.toggle('closed', door === 'CLOSED');
    if (st) st.textContent = door;
  }
  if (energized !== undefined) tile.classList.toggle('energized', energized);
  const lastEl = tile.querySelector('.last');
  if (last && lastEl) lastEl.textContent = `${last.what} · ${clock(last.at)}`;
}

/** @param {EventLine} e */
function addEvent(e) {
  const li = el('li');
  const failed = /^unanswered|^exception|^invalid/.test(e.outcome);
  li.appendChild(el('span', 'ep', `/${e.endpoint} `));
  li.appendChild(el('span', failed ? 'fail' : '', e.outcome));
  li.appendChild(el('span', 'mono', ` · ${e.attempts}${e.attempts === 1 ? ' attempt' : ' attempts'} · ${Math.round(e.ms)} ms`));
  li.appendChild(el('br'));
  li.appendChild(el('code', 'event-id', `event ${e.eventId}`));
  for (const t of e.traceIds) {
    li.appendChild(el('br'));
    li.appendChild(el('code', 'trace-id', `trace ${t}`));
  }
  const tl = $('timeline');
  tl.insertBefore(li, tl.firstChild);
  while (tl.children.length > 100 && tl.lastChild) tl.removeChild(tl.lastChild);
}

function tickContact() {
  const s = state.status;
  if (!s) return;
  const ms = s.lastServerContactAgeMs === null ? null : s.lastServerContactAgeMs + (performance.now() - state.statusAt);
  $('contact').textContent = age(ms);
}
setInterval(() => {
  tickContact();
  if (state.status) renderAlarms(state.status);
}, 1000);

/** @param {string} text */
function showResult(text) {
  $('result').textContent = text;
}

function refreshSoon() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(() => {
    api('GET', '/api/status').then(
      (s) => renderStatus(/** @type {StatusBody} */ (s)),
      () => undefined,
    );
  }, 250);
}

// --- live stream: fetch + streaming reader (EventSource cannot send the Authorization header) --

/**
 * One event of /api/events/stream: the status first, then every change as the observer sends it.
 * @param {string} type
 * @param {unknown} data
 */
function onStreamEvent(type, data) {
  if (type === 'status') return renderStatus(/** @type {StatusBody} */ (data));
  const e = /** @type {StreamEvent} */ (data);
  switch (e.type) {
    case 'display':
      return renderDisplay(e.lines);
    case 'box':
      setBox(e.number, e.state);
      return refreshSoon();
    case 'lock':
      setBox(e.number, undefined, e.energized);
      return refreshSoon();
    case 'mode':
      renderMode(e.mode, state.status?.service ?? false);
      return refreshSoon();
    case 'event-sent':
      $('inflight').textContent = `/${e.endpoint} ${e.eventId}`;
      return;
    case 'event-done':
      addEvent(e.record);
      return refreshSoon();
    case 'service':
    case 'alarm':
      return refreshSoon();
    case 'technician':
    case 'rfid-security-failed':
      return;
  }
}

function connect() {
  if (state.abort) state.abort.abort();
  const ctl = new AbortController();
  state.abort = ctl;
  fetch('/api/events/stream', { headers: { Authorization: `Bearer ${token() ?? ''}`, Accept: 'text/event-stream' }, signal: ctl.signal, cache: 'no-store' })
    .then((res) => {
      if (res.status === 401) {
        signOut('Token refused.');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      setConn(true);
      state.retry = 0;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      /** @returns {Promise<void>} */
      const pump = () =>
        reader.read().then((r) => {
          if (r.done) throw new Error('stream ended');
          buf += decoder.decode(r.value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let type = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) {
              try {
                onStreamEvent(type, JSON.parse(data));
              } catch (e) {
                console.error(e);
              }
            }
          }
          return pump();
        });
      return pump();
    })
    .catch(() => {
      if (ctl.signal.aborted) return;
      setConn(false);
      state.retry = Math.min(state.retry + 1, 5);
      setTimeout(() => {
        if (token() && state.abort === ctl) connect();
      }, 1000 * state.retry);
    });
}

/** @param {boolean} live */
function setConn(live) {
  $('conn').textContent = live ? 'live' : 'reconnecting';
  $('conn').className = `badge ${live ? 'ok' : 'bad'}`;
}

// --- actions behind a confirmation ------------------------------------------------------------

/** @type {Pending | null} */
let pending = null;

/**
 * @param {string} text
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
function confirmThen(text, method, path, body) {
  pending = { method, path, body };
  $('confirm-text').textContent = text;
  dialog().showModal();
}
$('confirm-cancel').addEventListener('click', () => {
  pending = null;
  dialog().close();
});
$('confirm-ok').addEventListener('click', () => {
  const p = pending;
  pending = null;
  dialog().close();
  if (!p) return;
  showResult(`${p.method} ${p.path} …`);
  api(p.method, p.path, p.body).then(
    (data) => {
      showResult(`${p.path}: ${JSON.stringify(data, null, 1)}`);
      refreshSoon();
    },
    (e) => showResult(`${p.path} refused: ${e instanceof Error ? e.message : String(e)}`),
  );
});
$('svc-on').addEventListener('click', () => {
  confirmThen('Turn service mode on? The station reports DOWN ("service") and the server sends it no readers.', 'POST', '/api/service', { on: true });
});
$('svc-off').addEventListener('click', () => {
  confirmThen('Turn service mode off? The station reports UP and serves readers again.', 'POST', '/api/service', { on: false });
});
$('selftest').addEventListener('click', () => {
  confirmThen('Run the self-test? EVERY box is opened, one after the other. Service mode must be on.', 'POST', '/api/selftest');
});
$('reload').addEventListener('click', () => {
  confirmThen('Reload the config file? The station restarts with it (a bad file changes nothing).', 'POST', '/api/reload');
});
$('scan').addEventListener('click', () => {
  const v = field('scan-value').value.trim();
  if (v) confirmThen(`Inject the scan "${v}"?`, 'POST', '/api/inject/scan', { value: v });
});
$('pin').addEventListener('click', () => {
  const v = field('pin-value').value;
  field('pin-value').value = '';
  if (v) confirmThen(`Inject a PIN of ${v.length} digits?`, 'POST', '/api/inject/pin', { pin: v });
});

// --- token --------------------------------------------------------------------------------------

function signIn() {
  $('login-error').textContent = '';
  api('GET', '/api/status').then(
    (s) => {
      $('login').classList.add('hidden');
      $('app').classList.remove('hidden');
      $('logout').classList.remove('hidden');
      renderStatus(/** @type {StatusBody} */ (s));
      connect();
    },
    (e) => {
      const message = e instanceof Error ? e.message : String(e);
      $('login-error').textContent = message === 'token refused' ? 'Token refused.' : `Station not reachable: ${message}`;
    },
  );
}

/** @param {string} why */
function signOut(why) {
  sessionStorage.removeItem(KEY);
  if (state.abort) {
    state.abort.abort();
    state.abort = null;
  }
  $('app').classList.add('hidden');
  $('login').classList.remove('hidden');
  $('logout').classList.add('hidden');
  $('conn').textContent = 'offline';
  $('conn').className = 'badge';
  $('login-error').textContent = why;
}

$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const t = field('token').value.trim();
  field('token').value = '';
  if (!t) return;
  sessionStorage.setItem(KEY, t);
  signIn();
});
$('logout').addEventListener('click', () => signOut(''));
if (token()) signIn();
