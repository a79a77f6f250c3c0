/** `npm start`'s demo as a person uses it: commands typed on stdin, display and boxes on stdout. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../dist/src/main.js');

describe('demo', () => {
  it('deposits into box 1 and picks up from boxes 5 and 6, driven from the terminal', async () => {
    const child = spawn(process.execPath, [MAIN, 'demo'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const waitFor = async (text: string | RegExp, timeoutMs = 8_000): Promise<void> => {
      const start = performance.now();
      while (!(typeof text === 'string' ? out.includes(text) : text.test(out))) {
        if (performance.now() - start > timeoutMs) throw new Error(`demo output lacks ${String(text)}:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await waitFor('│Scan an item');
    child.stdin.write('scan 31234000000017\n');
    await waitFor(/boxes: 1:OPEN/);
    child.stdin.write('close 1\n');
    await waitFor(/boxes: 1:· 2:·/);
    child.stdin.write('pin 654321\n');
    await waitFor(/boxes: .*5:OPEN 6:OPEN/);
    child.stdin.write('status\n');
    await waitFor('mode: closing');
    child.stdin.write('bogus\n');
    await waitFor('unknown command "bogus"');
    child.stdin.write('quit\n');
    expect(await exited).toBe(0);
  });
});
