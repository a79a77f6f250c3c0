/**
 * `npm start`'s demo as a person uses it: commands typed on stdin, display and boxes on stdout. The
 * display is the terminal display driver imitating the field's 20x4 ASCII LCD: Czech texts arrive
 * transliterated, long ones wrapped at 20 columns, exactly as that LCD shows them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../support/shared.js';

const MAIN = join(import.meta.dirname, '../../dist/src/main.js');

let child: ChildProcess | undefined;
// A failed test must not leave its demo process running.
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/** Start the demo with `args`; returns what it printed so far and a waiter on it. */
function startDemo(args: string[] = []) {
  const demo = spawn(process.execPath, [MAIN, 'demo', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  child = demo;
  const io = { out: '' };
  demo.stdout.on('data', (d: Buffer) => (io.out += d.toString()));
  const exited = new Promise<number | null>((resolve) => demo.on('exit', resolve));
  const waitForOutput = async (text: string | RegExp, from = 0, timeoutMs = 15_000): Promise<void> => {
    const start = performance.now();
    while (!(typeof text === 'string' ? io.out.slice(from).includes(text) : text.test(io.out.slice(from)))) {
      if (performance.now() - start > timeoutMs) throw new Error(`demo output lacks ${String(text)}:\n${io.out}`);
      await sleep(20);
    }
  };
  return { demo, io, exited, waitForOutput };
}

describe('demo', () => {
  it('starts in Czech (--locale cs): its own texts and the server texts in Czech; a forced door and the tamper switch raise alarms; the buzzer rings the terminal bell', async () => {
    const { demo, io, exited, waitForOutput } = startDemo(['--locale', 'cs']);
    await waitForOutput('(texts: cs)');
    await waitForOutput('│Naskenujte polozku  │'); // the reference server's prompt, in the station's language, as the ASCII LCD shows it
    demo.stdin.write('scan 0000\n'); // unknown to the server: "please wait" while in flight, then its exception
    await waitForOutput('│Cekejte prosim...   │');
    await waitForOutput('│Polozka nenalezena  │'); // the answer: an exception (the server's text, in Czech too)
    let mark = io.out.length;
    demo.stdin.write('key 1\n');
    await waitForOutput('\x07', mark); // the accepted key's beep
    demo.stdin.write('key enter\n');
    await waitForOutput('│PIN ma 6 cislic     │', mark);
    mark = io.out.length;
    demo.stdin.write('open 3\n');
    await waitForOutput('ALARM: box 3 forced open', mark);
    demo.stdin.write('close 3\n');
    await waitForOutput('alarm cleared: box 3 forced open', mark);
    mark = io.out.length;
    demo.stdin.write('tamper open\n');
    await waitForOutput('ALARM: tamper', mark);
    await waitForOutput('│Stanice mimo provoz │', mark);
    demo.stdin.write('tamper close\n');
    await waitForOutput('alarm cleared: tamper', mark);
    demo.stdin.write('quit\n');
    expect(await exited).toBe(0);
  });

  it('serves the technician page on loopback with a service token for this run only', async () => {
    const { demo, io, exited, waitForOutput } = startDemo();
    await waitForOutput(/technician page: http:\/\/127\.0\.0\.1:\d+\/ +\(service token for this run only: pst_[A-Za-z0-9_-]{43}\)/);
    const [, url, token] = /technician page: (\S+) +\(service token for this run only: (\S+)\)/.exec(io.out) ?? [];
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Technician token');
    const status = await fetch(`${url}api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { stationId: string }).stationId).toBe('5b1f4a52-9c3e-4d7a-8e21-0c6f3b9a7d10');
    // The token is a service token: the technician may act, here turn service mode on.
    const service = await fetch(`${url}api/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"on":true}',
    });
    expect(service.status).toBe(200);
    expect((await fetch(`${url}api/status`)).status).toBe(401);
    demo.stdin.write('quit\n');
    expect(await exited).toBe(0);
  });

  it('refuses an unknown locale with its usage', async () => {
    const { demo, exited } = startDemo(['--locale', 'de']);
    let err = '';
    demo.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited).toBe(2);
    expect(err).toContain('demo: --locale must be cs or en, got "de"');
    expect(err).toContain('pickup-station demo [--locale cs|en]');
  });

  it('deposits into box 1, an RFID set of three into box 9, and picks up from boxes 5 and 6, driven from the terminal', async () => {
    const demo = spawn(process.execPath, [MAIN, 'demo'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child = demo;
    let out = '';
    demo.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => demo.on('exit', resolve));
    // Waits for `text` in what was printed after `from` (an offset into the output).
    const waitForOutput = async (text: string | RegExp, from = 0, timeoutMs = 15_000): Promise<void> => {
      const start = performance.now();
      while (!(typeof text === 'string' ? out.slice(from).includes(text) : text.test(out.slice(from)))) {
        if (performance.now() - start > timeoutMs) throw new Error(`demo output lacks ${String(text)}:\n${out}`);
        await sleep(20);
      }
    };
    await waitForOutput('│Scan an item');
    demo.stdin.write('scan 31234000000017\n');
    await waitForOutput(/boxes: 1:OPEN/);
    let mark = out.length;
    demo.stdin.write('close 1\n');
    await waitForOutput(/boxes: 1:· 2:·/, mark);
    // The prompt returns once the server answered the /state that reported the box closed.
    await waitForOutput('│Scan an item', mark);
    mark = out.length;
    // A librarian lays the three parts of a set on the RFID reader: one deposit, its AFI cleared.
    demo.stdin.write('rfid set 31234000000058 3\n');
    await waitForOutput(/boxes: .*9:OPEN/, mark);
    await waitForOutput('security bit cleared and verified', mark);
    mark = out.length;
    demo.stdin.write('rfid off\nclose 9\n');
    await waitForOutput(/boxes: .*8:· 9:·/, mark);
    await waitForOutput('│Scan an item', mark);
    mark = out.length;
    demo.stdin.write('pin 654321\n');
    await waitForOutput(/boxes: .*5:OPEN 6:OPEN/, mark);
    // The station is in "closing" only once the /state reporting the open doors is answered.
    await waitForOutput('│Take your items from│\n│boxes 5, 6          │', mark);
    demo.stdin.write('status\n');
    await waitForOutput('mode: closing');
    demo.stdin.write('bogus\n');
    await waitForOutput('unknown command "bogus"');
    demo.stdin.write('quit\n');
    expect(await exited).toBe(0);
  });
});

describe('demo --display', () => {
  it('draws the display as a 20x4 LCD with Czech custom characters, and as the 128x64 OLED', async () => {
    const lcd = startDemo(['--locale', 'cs', '--display', '20x4-czech']);
    await lcd.waitForOutput('│Naskenujte položku  │');
    lcd.demo.stdin.write('quit\n');
    expect(await lcd.exited).toBe(0);
    const oled = startDemo(['--display', '128x64']);
    await oled.waitForOutput(`┌${'─'.repeat(128)}┐`);
    await oled.waitForOutput(/[▀▄█]/);
    oled.demo.stdin.write('quit\n');
    expect(await oled.exited).toBe(0);
  });

  it('serves the kiosk page with --display kiosk, its keys only with the kiosk secret of this run, printed in the address', async () => {
    const k = startDemo(['--display', 'kiosk', '--kiosk-port', '0']);
    await k.waitForOutput(/kiosk page: http:\/\/127\.0\.0\.1:(\d+)\/#k=([0-9a-f]{64})/);
    const [, port, secret] = /kiosk page: http:\/\/127\.0\.0\.1:(\d+)\/#k=([0-9a-f]{64})/.exec(k.io.out) ?? [];
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="keypad"');
    const key = (auth: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/key`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{"key":"1"}' }).then(
        (r) => r.status,
      );
    expect(await key({})).toBe(401);
    expect(await key({ authorization: `Bearer ${secret}` })).toBe(204);
    k.demo.stdin.write('quit\n');
    expect(await k.exited).toBe(0);
  });

  it('speech: the speech command turns it on and the demo prints what the station says; a PIN key is a tone', async () => {
    const d = startDemo([]);
    await d.waitForOutput(/Scan an item/);
    d.demo.stdin.write('speech\n');
    await d.waitForOutput(/speaks \(en-us, 70 %\): Scan an item\. or enter your pin\. Speech is on\./);
    d.demo.stdin.write('key 7\n');
    await d.waitForOutput(/tone \(70 %\): 880Hz\/70ms/);
    const said = d.io.out
      .split('\n')
      .filter((l) => l.startsWith('speaks'))
      .map((l) => l.slice(l.indexOf('): ') + 3));
    expect(said.length).toBeGreaterThan(0);
    for (const text of said) expect(text).not.toMatch(/7|seven/);
    d.demo.stdin.write('quit\n');
    expect(await d.exited).toBe(0);
  });

  it('refuses an unknown display', async () => {
    const { demo, exited } = startDemo(['--display', '40x2']);
    let err = '';
    demo.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited).toBe(2);
    expect(err).toContain('demo: --display must be text, 16x2, 20x4, 20x4-czech, 128x64, kiosk, got "40x2"');
  });
});
