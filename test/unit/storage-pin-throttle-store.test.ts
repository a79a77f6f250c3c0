/** The PIN throttle's state file: its format, the damaged cases, its mode, and the memory adapter. */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FilePinThrottleStore, MemoryPinThrottleStore, pinThrottleStoreFor } from '../../src/storage/pin-throttle-store.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'pin-store-'));

describe('FilePinThrottleStore', () => {
  it('none before the first save; the record after it, owner-only', async () => {
    const d = dir();
    const store = new FilePinThrottleStore(d);
    expect(await store.load()).toEqual({ kind: 'none' });
    await store.save({ failures: 7, lockoutMs: 120_000 });
    expect(await store.load()).toEqual({ kind: 'ok', record: { failures: 7, lockoutMs: 120_000 } });
    expect(statSync(join(d, 'pin-throttle.json')).mode & 0o777).toBe(0o600);
    expect(await new FilePinThrottleStore(d).load()).toEqual({ kind: 'ok', record: { failures: 7, lockoutMs: 120_000 } });
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['a wrong shape', '{"version":1,"failures":-1,"lockoutMs":null}'],
    ['another version', '{"version":2,"failures":1,"lockoutMs":null}'],
    ['unknown fields', '{"version":1,"failures":1,"lockoutMs":null,"x":1}'],
  ])('a file with %s is damaged, with a reason', async (_what, text) => {
    const d = dir();
    writeFileSync(join(d, 'pin-throttle.json'), text);
    const r = await new FilePinThrottleStore(d).load();
    expect(r.kind).toBe('damaged');
    expect(r.kind === 'damaged' && r.reason).toContain(join(d, 'pin-throttle.json'));
  });

  it('a save into a missing directory rejects (the runtime makes it a fault)', async () => {
    await expect(new FilePinThrottleStore(join(dir(), 'missing')).save({ failures: 1, lockoutMs: null })).rejects.toThrow();
  });

  it('storage.directory null: memory', async () => {
    const store = pinThrottleStoreFor(null);
    expect(store).toBeInstanceOf(MemoryPinThrottleStore);
    await store.save({ failures: 2, lockoutMs: null });
    expect(await store.load()).toEqual({ kind: 'ok', record: { failures: 2, lockoutMs: null } });
    expect(pinThrottleStoreFor('/x')).toBeInstanceOf(FilePinThrottleStore);
  });
});
