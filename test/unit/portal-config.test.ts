import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { PortalCredentialsError, portalConfigSchema, readPortalCredentials } from '../../src/portal/config.js';

const dir = mkdtempSync(join(tmpdir(), 'portal-config-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('portal config section', () => {
  it('fills defaults and requires username for the password grant', () => {
    expect(portalConfigSchema.parse({ baseUrl: 'https://portal.example/' })).toEqual({
      baseUrl: 'https://portal.example/',
      grant: 'client_credentials',
      timeoutMs: 30_000,
      maxAnswerBytes: 4_194_304,
    });
    const r = portalConfigSchema.safeParse({ baseUrl: 'https://portal.example/', grant: 'password' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['username']);
    expect(portalConfigSchema.safeParse({ baseUrl: 'ftp://x', grant: 'client_credentials' }).success).toBe(false);
    expect(portalConfigSchema.safeParse({ baseUrl: 'https://x', colour: 'red' }).success).toBe(false);
  });

  it('is an optional section of the station config', () => {
    const base = {
      station: { id: '0b6c1e2a-8f3d-4c5e-9a7b-1c2d3e4f5a6b', boxes: [{ number: 1, id: '1b6c1e2a-8f3d-4c5e-9a7b-1c2d3e4f5a6b' }] },
      server: { baseUrl: 'https://lib.example/station' },
    };
    expect(configSchema.parse(base).portal).toBeUndefined();
    expect(configSchema.parse({ ...base, portal: { baseUrl: 'https://portal.example' } }).portal).toMatchObject({ grant: 'client_credentials' });
  });
});

describe('credentials file', () => {
  it('comes from credentialsFile or $CREDENTIALS_DIRECTORY/portal-client', () => {
    const explicit = file('creds.json', JSON.stringify({ clientId: 'a', clientSecret: 'b' }));
    expect(readPortalCredentials({ credentialsFile: explicit, grant: 'client_credentials' }, {})).toEqual({ clientId: 'a', clientSecret: 'b' });
    file('portal-client', JSON.stringify({ clientId: 'c', clientSecret: 'd', password: 'e' }));
    expect(readPortalCredentials({ grant: 'password' }, { CREDENTIALS_DIRECTORY: dir })).toEqual({ clientId: 'c', clientSecret: 'd', password: 'e' });
  });

  it('reports problems without the secret values', () => {
    const secret = 'TOP-SECRET-VALUE';
    const cases: [string, object | undefined][] = [
      [file('bad.json', `{"clientId":"a","clientSecret":"${secret}"`), undefined],
      [file('colon.json', JSON.stringify({ clientId: 'a:b', clientSecret: secret })), undefined],
      [file('nopw.json', JSON.stringify({ clientId: 'a', clientSecret: secret })), { grant: 'password' }],
      [file('num.json', JSON.stringify({ clientId: 'a', clientSecret: 12345, password: secret })), undefined],
    ];
    for (const [path, extra] of cases) {
      let err: unknown;
      try {
        readPortalCredentials({ credentialsFile: path, grant: 'client_credentials', ...extra }, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PortalCredentialsError);
      expect((err as Error).message).toContain(path);
      expect((err as Error).message).not.toContain(secret);
      expect((err as Error).message).not.toContain('12345');
    }
    expect(() => readPortalCredentials({ grant: 'client_credentials' }, {})).toThrow(/no portal credentials/);
  });
});
