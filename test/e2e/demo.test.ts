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
    // Waits for `text` in what was printed after `from` (an offset into the output).
    const waitFor = async (text: string | RegExp, from = 0, timeoutMs = 15_000): Promise<void> => {
      const start = performance.now();
      while (!(typeof text === 'string' ? out.slice(from).includes(text) : text.test(out.slice(from)))) {
        if (performance.now() - start > timeoutMs) throw new Error(`demo output lacks ${String(text)}:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await waitFor('│Scan an item');
    child.stdin.write('scan 31234000000017\n');
    await waitFor(/boxes: 1:OPEN/);
    let mark = out.length;
    child.stdin.write('close 1\n');
    await waitFor(/boxes: 1:· 2:·/, mark);
    // The prompt returns once the server answered the /state that reported the box closed.
    await waitFor('│Scan an item', mark);
    mark = out.length;
    child.stdin.write('pin 654321\n');
    await waitFor(/boxes: .*5:OPEN 6:OPEN/, mark);
    // The station is in "closing" only once the /state reporting the open doors is answered.
    await waitFor(/│Take your items from boxes 5, 6/, mark);
    child.stdin.write('status\n');
    await waitFor('mode: closing');
    child.stdin.write('bogus\n');
    await waitFor('unknown command "bogus"');
    child.stdin.write('quit\n');
    expect(await exited).toBe(0);
  });
});
