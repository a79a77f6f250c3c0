// The tests' kiosk unit (systemd/pickup-station-kiosk.service, as far as a test can be it), run as
// the station's browser restart command is run:
//
//   node kiosk-browser.mjs restart DIR
//
// stops the browser it started last (SIGKILL to its process group, as systemd's stop ends with) and
// starts Chromium, headless, on the kiosk's start page — made by the shipped systemd/kiosk-secret.sh
// from DIR/secret, as the unit's ExecStartPre makes it — then exits 0 once the browser runs, as
// `systemctl restart` of a Type=simple unit does. DIR holds: `port` (the kiosk page's port),
// `cdp-port` (Chromium's DevTools port, for the test to look at the page), `secret` (the kiosk's
// secret, the unit's credential), optionally `binary` (the browser to start: a test makes it one that
// cannot show the page), and writes `pid` and `starts` (one line per start).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const [verb, dir] = process.argv.slice(2);
if (verb !== 'restart' || dir === undefined) {
  process.stderr.write('usage: kiosk-browser.mjs restart DIR\n');
  process.exit(2);
}
/** @param {string} f */
const read = (f) => readFileSync(join(dir, f), 'utf8').trim();
/** @param {number} pid */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

if (existsSync(join(dir, 'pid'))) {
  const pid = Number(read('pid'));
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
}

const script = join(import.meta.dirname, '../../systemd/kiosk-secret.sh');
const page = spawnSync('sh', [script, 'page', join(dir, 'secret'), join(dir, 'start.html'), `http://127.0.0.1:${read('port')}/`], { encoding: 'utf8' });
if (page.status !== 0) {
  process.stderr.write(page.stderr);
  process.exit(1);
}
const starts = existsSync(join(dir, 'starts')) ? read('starts').split('\n').length : 0;
const binary = existsSync(join(dir, 'binary')) ? read('binary') : '/usr/bin/chromium';
const child = spawn(
  binary,
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--window-size=800,480',
    `--remote-debugging-port=${read('cdp-port')}`,
    `--user-data-dir=${join(dir, `profile-${starts}`)}`,
    `file://${join(dir, 'start.html')}`,
  ],
  { detached: true, stdio: 'ignore' },
);
const started = await new Promise((resolve) => {
  child.once('spawn', () => resolve(true));
  child.once('error', (e) => {
    process.stderr.write(`${binary}: ${e.message}\n`);
    resolve(false);
  });
});
if (!started) process.exit(1);
writeFileSync(join(dir, 'pid'), String(child.pid));
appendFileSync(join(dir, 'starts'), `${child.pid}\n`);
child.unref();
