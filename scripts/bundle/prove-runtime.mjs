#!/usr/bin/env node
/**
 * Runs an unpacked bundle's station with a given node command (emulated in CI) and proves it
 * works end to end. Runs itself with the host node.
 *
 *   node prove-runtime.mjs daemon <bundle dir> -- <node command...>
 *     The daemon as systemd runs it (`app/main.js run --config FILE`, password from
 *     $CREDENTIALS_DIRECTORY, simulated hardware) against the bundle's own reference server
 *     (`app/main.js sim-server`, run by the host's node; its records read through its loopback
 *     control API): exit 78 on a bad config, then a real run until the first answered /state, then
 *     SIGTERM -> exit 0 with JSON log lines and no password in them.
 *
 *   node prove-runtime.mjs demo <bundle dir> -- <node command...>
 *     `main.js demo` (simulated hardware + embedded reference server), driven on stdin like a
 *     person: one deposit (scan, door opens, close) and one pickup (PIN, door opens, close). The
 *     server's records are read back through its loopback control API. The bundle has no
 *     pino-pretty (a dev dependency), so this is also the demo's JSON-log fallback.
 *
 * <node command> is e.g. `qemu-aarch64-static -L SYSROOT .cache/.../bin/node`. The child gets an
 * empty environment apart from PATH (an empty folder: nothing it could spawn), HOME and LANG.
 * Every wait has a generous timeout: emulated node is ~15x slower than the host's.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const WAIT_MS = Number(process.env.PROVE_WAIT_MS ?? 90_000);
const [mode, bundleArg, sep, ...runner] = process.argv.slice(2);
if (!['daemon', 'demo'].includes(mode ?? '') || !bundleArg || sep !== '--' || runner.length === 0) {
  console.error('usage: prove-runtime.mjs daemon|demo <bundle dir> -- <node command...>');
  process.exit(2);
}
const bundle = resolve(bundleArg);
const MAIN = join(bundle, 'app/main.js');
const started = performance.now();
const tempDirs = [];
const children = [];
// On any exit (a failed check exits at once): no station left running, no temp folder left behind.
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(d);
  return d;
}
const secs = (from = started) => `${((performance.now() - from) / 1000).toFixed(1)}s`;
const step = (msg) => console.log(`[${secs()}] ${msg}`);

function fail(msg, output = '') {
  console.error(`prove-runtime ${mode}: FAILED: ${msg}`);
  if (output) console.error(`--- child output ---\n${output}\n---`);
  process.exit(1);
}

function childEnv(extra = {}) {
  const home = tempDir('prove-home-');
  const emptyBin = join(home, 'bin');
  mkdirSync(emptyBin);
  return { PATH: emptyBin, HOME: home, LANG: 'C.UTF-8', ...extra };
}

/** The station under the given node command (default: the runner); output collected, waits on it by pattern. */
function startChild(args, env, stdin = 'ignore', command = runner) {
  const [cmd, ...pre] = command;
  const child = spawn(cmd, [...pre, MAIN, ...args], { cwd: bundle, env, stdio: [stdin, 'pipe', 'pipe'] });
  children.push(child);
  const io = { out: '', err: '' };
  child.stdout.on('data', (d) => (io.out += d.toString()));
  child.stderr.on('data', (d) => (io.err += d.toString()));
  const exited = new Promise((res) => child.on('exit', (code, signal) => res(code ?? signal)));
  const all = () => `${io.out}${io.err ? `\n[stderr]\n${io.err}` : ''}`;
  /** Resolves with the match once `pattern` appears in stdout at or after `from`. */
  const waitFor = async (pattern, from = 0, what = String(pattern)) => {
    const t0 = performance.now();
    for (;;) {
      const m = pattern.exec(io.out.slice(from));
      if (m) return m;
      if (child.exitCode !== null) fail(`exited (${child.exitCode}) before ${what}`, all());
      if (performance.now() - t0 > WAIT_MS) fail(`no ${what} within ${WAIT_MS} ms`, all());
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const waitExit = async (what) => {
    const timer = setTimeout(() => fail(`${what}: no exit within ${WAIT_MS} ms`, all()), WAIT_MS);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { child, io, all, waitFor, waitExit };
}

/** A line without the BELs (the demo's buzzer, on the same stdout) and CRs that can land before a log line. */
function unprefixed(line) {
  let i = 0;
  while (line[i] === '\u0007' || line[i] === '\r') i++;
  return line.slice(i);
}

function jsonLines(text) {
  return text
    .split('\n')
    .map(unprefixed)
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return null;
      }
    })
    .filter((l) => l !== null);
}

/** A station of the reference server's stations-file format: fresh ids, a 20-character password. */
function station() {
  const password = randomUUID().replace(/-/g, '').slice(0, 20);
  return { id: randomUUID(), password, boxes: [randomUUID(), randomUUID(), randomUUID()] };
}

async function proveDaemon() {
  const dir = tempDir('prove-daemon-');
  const st = station();

  // A bad config: exit 78 before any hardware is touched (systemd does not restart on it).
  const badFile = join(dir, 'bad.json');
  writeFileSync(badFile, JSON.stringify({ station: { id: 'nope', boxes: [] }, server: { baseUrl: 'gopher://x' } }));
  const t0 = performance.now();
  const bad = startChild(['run', '--config', badFile], childEnv());
  const badCode = await bad.waitExit('bad config');
  if (badCode !== 78) fail(`bad config: exit ${badCode}, expected 78`, bad.all());
  if (!bad.io.err.includes('station.id')) fail('bad config: problem not named', bad.all());
  step(`daemon: bad config -> exit 78 (${secs(t0)})`);

  // The bundle's reference server, run by the host's node (it is the station's counterpart, not under proof).
  const stationsFile = join(dir, 'stations.json');
  writeFileSync(stationsFile, JSON.stringify({ stations: [st] }));
  const sim = startChild(['sim-server', '--stations-file', stationsFile], childEnv(), 'ignore', [process.execPath]);
  const [, url] = await sim.waitFor(/reference station server: (http:\/\/127\.0\.0\.1:\d+)\/v2/, 0, 'the reference server URL');
  writeFileSync(join(dir, 'station-password'), st.password);
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      station: { id: st.id, boxes: st.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: url },
      hardware: { kind: 'simulated' },
      storage: { directory: join(dir, 'state') },
    }),
  );
  const t1 = performance.now();
  const d = startChild(['run', '--config', file], childEnv({ CREDENTIALS_DIRECTORY: dir }));
  let first;
  for (;;) {
    const { requests } = await control(url, '/requests');
    first = requests.find((r) => r.endpoint === 'state' && r.stationId === st.id);
    if (first) break;
    if (d.child.exitCode !== null) fail(`exited (${d.child.exitCode}) before its first /state`, d.all());
    if (performance.now() - t1 > WAIT_MS) fail(`no /state reached the reference server within ${WAIT_MS} ms`, d.all());
    await new Promise((r) => setTimeout(r, 100));
  }
  if (first.status !== 200 || first.body?.station !== st.id || first.body?.st !== 'UP') {
    fail(`first /state: status ${first.status}, body ${JSON.stringify(first.body)}`, d.all());
  }
  if (!String(first.headers['user-agent']).startsWith('pickup-station/')) fail(`user-agent ${first.headers['user-agent']}`);
  await d.waitFor(/"msg":"event answered"/, 0, 'the answered /state in the log');
  step(`daemon: started, first /state answered 200 (UP, ${first.headers['user-agent']}) after ${secs(t1)}`);
  d.child.kill('SIGTERM');
  const code = await d.waitExit('SIGTERM');
  sim.child.kill('SIGTERM');
  await sim.waitExit('reference server SIGTERM');
  if (code !== 0) fail(`SIGTERM: exit ${code}, expected 0`, d.all());
  const msgs = jsonLines(d.io.out).map((l) => l.msg);
  for (const m of ['starting', 'event answered', 'stopping']) if (!msgs.includes(m)) fail(`log lacks "${m}"`, d.all());
  if (d.all().includes(st.password)) fail('the station password is in the output', d.all());
  step(`daemon: SIGTERM -> exit 0; JSON log lines ${msgs.length}, no password`);
}

async function control(url, path) {
  const res = await fetch(`${new URL(url).origin}/_control${path}`);
  if (!res.ok) fail(`control API ${path}: HTTP ${res.status}`);
  return res.json();
}

async function proveDemo() {
  const t0 = performance.now();
  const d = startChild(['demo'], childEnv(), 'pipe');
  const send = (line) => d.child.stdin.write(`${line}\n`);
  const [, id] = await d.waitFor(/simulated station ([0-9a-f-]{36})/, 0, 'the station id');
  const [, origin] = await d.waitFor(/reference server (http:\/\/127\.0\.0\.1:\d+)\//, 0, 'the reference server URL');
  await d.waitFor(/│Scan an item/, 0, 'the prompt');
  step(`demo: up, prompt shown after ${secs(t0)}`);

  // Deposit: the librarian scans a seeded barcode, box 1 opens, the door is closed.
  let mark = d.io.out.length;
  let t = performance.now();
  send('scan 31234000000017');
  await d.waitFor(/boxes: 1:OPEN/, mark, 'box 1 OPEN');
  mark = d.io.out.length;
  send('close 1');
  await d.waitFor(/boxes: 1:· /, mark, 'box 1 closed');
  await d.waitFor(/"msg":"server command wait-for-input"/, mark, 'back to wait-for-input');
  step(`demo: deposit done (scan -> box 1 open -> closed) in ${secs(t)}`);

  // Pickup: a reader types the PIN for box 4, box 4 opens, the door is closed.
  mark = d.io.out.length;
  t = performance.now();
  send('pin 123456');
  await d.waitFor(/boxes: .*4:OPEN/, mark, 'box 4 OPEN');
  mark = d.io.out.length;
  send('close 4');
  await d.waitFor(/boxes: 1:· 2:· 3:· 4:· /, mark, 'box 4 closed');
  await d.waitFor(/"msg":"server command wait-for-input"/, mark, 'back to wait-for-input');
  step(`demo: pickup done (PIN -> box 4 open -> closed) in ${secs(t)}`);

  // The reference server's own records of what happened.
  const { requests } = await control(origin, '/requests');
  const deposit = requests.find((r) => r.endpoint === 'item-identify' && r.body?.identifierValue === '31234000000017');
  const pickup = requests.find((r) => r.endpoint === 'pin-enter');
  if (deposit?.status !== 200 || deposit.response?.type !== 'box-open') fail(`item-identify record: ${JSON.stringify(deposit)}`);
  if (pickup?.status !== 200 || pickup.response?.type !== 'box-open') fail(`pin-enter record: ${JSON.stringify(pickup)}`);
  const unanswered = requests.filter((r) => r.status !== 200);
  if (unanswered.length > 0) fail(`requests not answered 200: ${JSON.stringify(unanswered)}`);
  const snap = await control(origin, `/stations/${id}`);
  const box = (n) => snap.boxes.find((b) => b.number === n);
  if (!box(1)?.contents.includes('31234000000017')) fail(`box 1 contents: ${JSON.stringify(box(1))}`);
  if (box(1).reported !== 'CLOSED' || box(4)?.reported !== 'CLOSED') fail(`reported box states: ${JSON.stringify(snap.boxes)}`);
  if (snap.active !== null) fail(`an action is still active: ${JSON.stringify(snap.active)}`);
  step(`demo: server records: ${requests.length} requests all 200; item 31234000000017 in box 1; boxes 1 and 4 CLOSED; nothing active`);

  const logs = jsonLines(d.io.out);
  if (/\] INFO: /.test(d.io.out)) fail('pretty log lines: pino-pretty (a dev dependency) was found', d.all());
  if (!logs.some((l) => l.msg === 'event answered' && l.endpoint === 'pin-enter')) fail('no JSON log line for the answered /pin-enter', d.all());
  if (
    /\b123456\b/.test(
      d.io.out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .join('\n'),
    )
  )
    fail('PIN digits in the log', d.all());

  send('quit');
  const code = await d.waitExit('quit');
  if (code !== 0) fail(`quit: exit ${code}, expected 0`, d.all());
  step(`demo: quit -> exit 0; ${logs.length} JSON log lines (no pino-pretty in the bundle), no PIN in them`);
}

await (mode === 'daemon' ? proveDaemon() : proveDemo());
step(`${mode}: proven in ${secs()}`);
process.exit(0);
