// An attacker without credentials against a port of the station (the technician port, the kiosk
// page), in its own process (its CPU is not the station's): it holds IDLE sockets open that never
// send a byte, SLOW slowloris sockets that trickle a request head one header line every TRICKLE ms
// and never finish it, and ASK sockets that send complete requests without credentials — an event
// stream, a key, a cancel, in turn — with the port's own Host, again after each answer. Every socket
// the station closes is opened again after RECONNECT ms, for as long as this runs.
//
//   node socket-flood.mjs PORT IDLE SLOW [TRICKLE_MS=200] [RECONNECT_MS=200] [ASK=0]
//
// Prints one JSON line on SIGTERM — connections opened, closed by the station, 408 and 401 answers
// seen — and the same line, going on, on each SIGUSR1 (a test waits on its counts, not on time).
import { connect } from 'node:net';
import process from 'node:process';
import { clearInterval, setInterval, setTimeout } from 'node:timers';

const [port, idle, slow, trickle = 200, reconnect = 200, ask = 0] = process.argv.slice(2).map(Number);
const stats = { opened: 0, closedByStation: 0, answered408: 0, answered401: 0, errors: 0, open: 0 };
const REQUESTS = [
  `GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
  `POST /key HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"key":"1"}`,
  `POST /cancel HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
];
let asked = 0;
let stopping = false;

function open(kind) {
  if (stopping) return;
  const s = connect(port, '127.0.0.1');
  stats.opened++;
  stats.open++;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  s.on('connect', () => {
    if (kind === 'ask') return void s.write(REQUESTS[asked++ % REQUESTS.length]);
    if (kind !== 'slow') return;
    s.write('GET /api/status HTTP/1.1\r\nHost: station\r\n');
    let n = 0;
    timer = setInterval(() => s.write(`X-Slow-${n++}: ${'a'.repeat(8)}\r\n`), trickle);
  });
  s.on('data', (d) => {
    const text = d.toString('latin1');
    if (text.startsWith('HTTP/1.1 408')) stats.answered408++;
    if (text.startsWith('HTTP/1.1 401')) stats.answered401++;
  });
  s.on('error', () => stats.errors++);
  s.on('close', () => {
    clearInterval(timer);
    stats.open--;
    if (stopping) return;
    stats.closedByStation++;
    setTimeout(() => open(kind), reconnect);
  });
}

for (let i = 0; i < idle; i++) open('idle');
for (let i = 0; i < slow; i++) open('slow');
for (let i = 0; i < ask; i++) open('ask');
process.stdout.write('ready\n');
process.on('SIGUSR1', () => process.stdout.write(`${JSON.stringify(stats)}\n`));
process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify(stats)}\n`, () => process.exit(0));
});
