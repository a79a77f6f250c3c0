/**
 * The bare-Node reference hop: read lines from a serial line, POST each as /item-identify with
 * http.request and a keep-alive agent. Nothing else: no framing rules, no state machine, no got,
 * no logging. What the station's own figure is compared with.
 *
 *   node bare-hop.js tty|serialport TTY_PATH ENDPOINT_URL STATION_ID PASSWORD
 *
 * `tty` reads the pty with tty.ReadStream (libuv's epoll-driven TTY handle, the fastest Node has);
 * `serialport` reads it with the serialport package, the same binding the station's driver uses.
 * Sends {ready: true} on IPC when the line is open; exits on disconnect.
 */
import { randomUUID } from 'node:crypto';
import { openSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { ReadStream } from 'node:tty';
import { SerialPort } from 'serialport';

const [mode, path, url, station, password] = process.argv.slice(2);
if (path === undefined || url === undefined || station === undefined || password === undefined)
  throw new Error('usage: bare-hop tty|serialport PATH URL STATION PASSWORD');
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const authorization = `Basic ${Buffer.from(`${station}:${password}`).toString('base64')}`;

function post(value: string): void {
  const body = JSON.stringify({ station, identifierType: 'BAR_CODE', identifierValue: value, event: randomUUID() });
  const req = request(url as string, {
    method: 'POST',
    agent,
    headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  req.on('response', (res) => res.resume());
  req.on('error', (e) => console.error(`bare-hop: ${e.message}`));
  req.end(body);
}

let partial = '';
function onData(chunk: Buffer): void {
  const lines = (partial + chunk.toString('latin1')).split(/\r\n|\r|\n/);
  partial = lines.pop() ?? '';
  for (const line of lines) if (line !== '') post(line);
}

if (mode === 'tty') {
  const stream = new ReadStream(openSync(path, 'r+'));
  stream.on('data', onData);
  process.send?.({ ready: true });
} else {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  port.on('data', onData);
  port.open((err) => {
    if (err) throw err;
    process.send?.({ ready: true });
  });
}
process.on('disconnect', () => process.exit(0));
