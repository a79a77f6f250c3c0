/**
 * Tokens (src/tokens/tokens.ts): made with 256 random bits and a prefix, stored only as sha256,
 * checked in constant time, Bearer headers parsed strictly, entries read from the config and the
 * systemd credential `technician-tokens`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { bearerToken, hashToken, loadTokenEntries, newToken, TokenStore } from '../../src/tokens/tokens.js';
import { technicianConfigSchema } from '../../src/config/technician.js';
import { ConfigError } from '../../src/errors.js';

describe('tokens', () => {
  it('a new token is 256 random bits with a prefix; only its sha256 is stored, and it verifies against that', () => {
    const t = newToken();
    expect(t).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(t);
    const hash = hashToken(t);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hash).not.toContain(t.slice(4));
    const store = new TokenStore([
      { name: 'bob', scope: 'read', hash: hashToken(newToken()) },
      { name: 'alice', scope: 'service', hash },
    ]);
    expect(store.verify(t)).toEqual({ name: 'alice', scope: 'service' });
    expect(store.verify(newToken())).toBeNull();
    expect(store.verify(t + 'x')).toBeNull();
    expect(store.verify('')).toBeNull();
  });

  it('parses only "Bearer <token>" headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });

  it('the config default is the unix socket (TCP only when written, 127.0.0.1 unless a host is); a token entry needs a sha256 hash', () => {
    expect(technicianConfigSchema.parse({}).listen).toEqual({ socket: '/run/pickup-station/technician.sock' });
    expect(technicianConfigSchema.parse({ listen: { port: 9000 } }).listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(technicianConfigSchema.parse({ listen: { host: '0.0.0.0', port: 9000 } }).listen).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(technicianConfigSchema.parse({ listen: { socket: '/run/x.sock' } }).listen).toEqual({ socket: '/run/x.sock' });
    expect(technicianConfigSchema.safeParse({ tokens: [{ name: 'a', scope: 'service', hash: 'plaintext-token' }] }).success).toBe(false);
    expect(technicianConfigSchema.safeParse({ tokens: [{ name: 'a', scope: 'admin', hash: hashToken('x') }] }).success).toBe(false);
    const { config } = validateConfig({
      station: { id: 'd3b07384-d9a0-4c9b-8f3e-2b8c1a0e5f11', boxes: [{ number: 1, id: 'a1b2c3d4-0000-4000-8000-000000000001' }] },
      server: { baseUrl: 'https://library.example/pickup' },
    });
    expect(config?.technician).toMatchObject({ enabled: true, listen: { socket: '/run/pickup-station/technician.sock' }, tokens: [], maxBodyBytes: 16_384 });
  });

  it('adds the entries of the systemd credential technician-tokens; an invalid one is a ConfigError without the file text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const own = { name: 'cfg', scope: 'read' as const, hash: hashToken(newToken()) };
    expect(loadTokenEntries([own], { CREDENTIALS_DIRECTORY: dir })).toEqual([own]); // no file: config only
    const cred = { name: 'cred', scope: 'service' as const, hash: hashToken(newToken()) };
    writeFileSync(join(dir, 'technician-tokens'), JSON.stringify([cred]));
    expect(loadTokenEntries([own], { CREDENTIALS_DIRECTORY: dir })).toEqual([own, cred]);
    writeFileSync(join(dir, 'technician-tokens'), 'pst_secretsecret not json');
    const err = (() => {
      try {
        loadTokenEntries([], { CREDENTIALS_DIRECTORY: dir });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).not.toContain('secretsecret');
  });
});
