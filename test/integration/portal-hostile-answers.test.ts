/**
 * The portal client's answers are bounded and named (docs/decisions/0039), through `stationctl portal`
 * against a hostile server double: an HTML page where JSON was expected is named as such (status,
 * content type, first bytes) instead of "expected object, received string"; a 200 MB answer is
 * abandoned past portal.maxAnswerBytes; a non-JSON token answer is named without its bytes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPortalCli } from '../../src/cli/portal.js';
import { HostileServer } from '../support/hostile-server.js';

const MB = 1024 * 1024;
const TOKEN = { access_token: 'portal-access-token-value-1234567890', token_type: 'bearer', expires_in: 3600, scope: 'EVIDED' };
const LOGIN_PAGE = '<!DOCTYPE html>\n<html><head><title>Wi-Fi login</title></head><body><form action="/login">...</form></body></html>';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function portal(args: string[], portalSection: Record<string, unknown> = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  server ??= new HostileServer((req) => ({ kind: 'json', body: req.url?.startsWith('/oauth/token') ? TOKEN : { content: [], totalElements: 0 } }));
  const url = await server.start();
  const dir = mkdtempSync(join(tmpdir(), 'hostile-portal-'));
  writeFileSync(join(dir, 'portal-client'), JSON.stringify({ clientId: 'station', clientSecret: 'client-secret-value' }));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ portal: { baseUrl: url, ...portalSection } }));
  let stdout = '';
  let stderr = '';
  const code = await runPortalCli([...args, '--config', config], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { CREDENTIALS_DIRECTORY: dir },
  });
  return { code, stdout, stderr };
}

describe('stationctl portal against a hostile answer', () => {
  it('an HTML page for a search is named: status, content type, first bytes', async () => {
    server = new HostileServer((req) =>
      req.url?.startsWith('/oauth/token')
        ? { kind: 'json', body: TOKEN }
        : { kind: 'text', status: 200, contentType: 'text/html; charset=utf-8', text: LOGIN_PAGE },
    );
    const r = await portal(['search', 'document', '--q', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the answer is not JSON (HTTP 200, content type "text/html; charset=utf-8", starts with "<!DOCTYPE html>\\n<html><head><title>Wi-Fi login</title>',
    );
    expect(r.stderr).toContain('captive portal');
    expect(r.stderr).not.toContain('expected object, received string');
  });

  it('a 200 MB search answer is abandoned past portal.maxAnswerBytes', async () => {
    server = new HostileServer(() => ({ kind: 'json', body: TOKEN }));
    server.arm((p) => p.startsWith('/api/search'), { kind: 'huge', bytes: 200 * MB, prefix: '{"content":["' });
    const r = await portal(['search', 'document', '--q', 'x'], { maxAnswerBytes: 1 * MB });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/an answer longer than portal\.maxAnswerBytes \(1048576 bytes\): abandoned \(HTTP 200\)/);
    const big = server.deliveries.find((d) => d.kind === 'huge')!;
    await big.done;
    expect(big.abandoned).toBe(true);
    expect(big.bytesOut).toBeLessThan(32 * MB);
  });

  it('a token endpoint answering non-JSON is named without its bytes (they may be a token)', async () => {
    server = new HostileServer(() => ({
      kind: 'text',
      status: 200,
      contentType: 'application/x-www-form-urlencoded',
      text: 'access_token=Sekr1tAccessTokenValue0123&token_type=bearer',
    }));
    const r = await portal(['login']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the answer is not JSON (HTTP 200, content type "application/x-www-form-urlencoded")');
    expect(r.stderr).not.toContain('Sekr1t');
  });
});
