import { describe, expect, it } from 'vitest';
import { LatestWrite } from '../../src/devices/display/latest-write.js';

/** A write that waits until the test lets it finish, recording what it wrote. */
function gatedWriter(content: () => string) {
  const written: string[] = [];
  const gates: Array<() => void> = [];
  let canWrite = true;
  const writes = new LatestWrite(async () => {
    if (!canWrite) return false;
    const what = content();
    await new Promise<void>((resolve) => gates.push(resolve));
    written.push(what);
    return true;
  });
  const releaseNext = async (): Promise<void> => {
    for (let i = 0; i < 10 && gates.length === 0; i++) await Promise.resolve();
    gates.shift()?.();
  };
  return { writes, written, releaseNext, setCanWrite: (v: boolean) => (canWrite = v) };
}

describe('LatestWrite', () => {
  it('turns any number of requests during a write into exactly one more write, of the latest content', async () => {
    let latest = 'a';
    const w = gatedWriter(() => latest);
    const first = w.writes.request();
    await w.releaseNext(); // let the first write start...
    latest = 'b';
    void w.writes.request();
    latest = 'c';
    void w.writes.request();
    latest = 'd';
    const last = w.writes.request();
    expect(last).toBe(first);
    await w.releaseNext();
    await last;
    expect(w.written).toEqual(['a', 'd']);
  });

  it('ends the run when nothing can be written, and writes again at the next request', async () => {
    const w = gatedWriter(() => 'x');
    w.setCanWrite(false);
    await w.writes.request();
    expect(w.written).toEqual([]);
    w.setCanWrite(true);
    const again = w.writes.request();
    await w.releaseNext();
    await again;
    expect(w.written).toEqual(['x']);
  });

  it("rejects the requester with a write's error; settled() does not, and the next request writes", async () => {
    let fail = true;
    const written: number[] = [];
    const writes = new LatestWrite(() => {
      if (fail) return Promise.reject(new Error('write timed out'));
      written.push(1);
      return Promise.resolve(true);
    });
    const failing = writes.request();
    const settled = writes.settled();
    await expect(failing).rejects.toThrow('write timed out');
    await expect(settled).resolves.toBeUndefined();
    fail = false;
    await writes.request();
    expect(written).toEqual([1]);
  });
});
