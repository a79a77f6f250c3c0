import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPortalCli } from '../../src/cli/portal.js';
import { FAKE_CLIENT, FAKE_USER, FakePortal } from '../support/fake-portal.js';

let fake: FakePortal;
let dir: string;
beforeEach(async () => {
  fake = await FakePortal.start();
  dir = mkdtempSync(join(tmpdir(), 'portal-cli-'));
  writeFileSync(join(dir, 'portal-client'), JSON.stringify({ ...FAKE_CLIENT, password: FAKE_USER.password }));
});
afterEach(() => fake.close());

function config(portal: Record<string, unknown> | undefined, name = 'config.json'): string {
  const p = join(dir, name);
  // Only the portal section is read: the rest may be anything, even an invalid station config.
  writeFileSync(p, JSON.stringify({ station: { id: 'not checked here' }, ...(portal ? { portal } : {}) }));
  return p;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string | undefined> = { CREDENTIALS_DIRECTORY: dir }): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runPortalCli(args, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env });
  return { code, stdout, stderr };
}

/** Run with a config pointing at the fake portal. */
const run = (...args: string[]) => cli([...args, '--config', config({ baseUrl: fake.url })]);

describe('stationctl portal login', () => {
  it('checks the credentials and prints scopes and expiry', async () => {
    const r = await run('login');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(`credentials OK for ${fake.url}`);
    expect(r.stdout).toContain('scopes: EVIDED EXTERNAL_SYSTEM');
    expect(r.stdout).toContain('token expires in 11 h 59 min (expires_in 43199)');
    expect(fake.requests.map((q) => q.path)).toEqual(['/oauth/token', '/api/users/current']);
  });

  it('--json, password grant from config', async () => {
    const r = await cli(['login', '--json', '--config', config({ baseUrl: fake.url, grant: 'password', username: FAKE_USER.username })], {
      CREDENTIALS_DIRECTORY: dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      baseUrl: fake.url,
      grant: 'password',
      user: { id: 7, label: 'Technician, Test' },
      scopes: ['EVIDED', 'EXTERNAL_SYSTEM'],
      expiresInSeconds: 43_199,
    });
  });

  it('refused credentials: exit 1 with a clear message', async () => {
    writeFileSync(join(dir, 'portal-client'), JSON.stringify({ clientId: FAKE_CLIENT.clientId, clientSecret: 'wrong-secret' }));
    const r = await run('login');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused the credentials: POST \/oauth\/token: HTTP 401/);
  });

  it('--portal-url overrides the config and works without a config file', async () => {
    const r = await cli(['login', '--portal-url', fake.url, '--config', config({ baseUrl: 'https://wrong.invalid' })]);
    expect(r.code).toBe(0);
    // Default config path missing (/etc/pickup-station/config.json on a test box): fine with --portal-url.
    const r2 = await cli(['login', '--portal-url', fake.url]);
    expect(r2.code).toBe(0);
  });
});

describe('search, newest, item', () => {
  it('search prints one line per item and a page summary', async () => {
    const r = await run('search', 'document', '--name', 'R.U.R.');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^00000000-0000-4000-8000-000000000005 {2}R\.U\.R\. \(1905\)\npage 1\/1: 1 of 1 result\(s\)\n$/);
  });

  it('search passes --q --fond --page-size --page; --json prints the page', async () => {
    const r = await run('search', 'document', '--q', 'book', '--fond', '1', '--page-size', '3', '--page', '2', '--json');
    expect(r.code).toBe(0);
    expect(fake.requests.at(-1)!.query).toEqual({ kind: 'document', q: 'book', fond: '1', pageSize: '3', pageNumber: '2' });
    expect(JSON.parse(r.stdout)).toMatchObject({ result: { pageNumber: 2, pageSize: 3, numberOfElements: 3 } });
  });

  it('search --all walks every page', async () => {
    const r = await run('search', 'document', '--page-size', '10', '--all', '--json');
    expect(JSON.parse(r.stdout)).toMatchObject({ totalElements: 23 });
    expect(fake.requests.filter((q) => q.path === '/api/search')).toHaveLength(3);
  });

  it('newest lists documents', async () => {
    const r = await run('newest');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    expect(r.stdout).toContain('3 document(s)');
  });

  it('item: a known exemplar barcode exits 0, an unknown label exits 1', async () => {
    const found = await run('item', '2500012345');
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('found: 2500012345 matches 1 exemplar(s)');
    expect(fake.requests.at(-1)!.query).toEqual({ kind: 'exemplar', q: '2500012345', pageSize: '10' });
    const missing = await run('item', '9999999999', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ barcode: '9999999999', found: false });
    expect(fake.requests.slice(-2).map((q) => q.query['kind'])).toEqual(['exemplar', 'document']);
  });

  it('item falls back to a document search (e.g. an ISBN)', async () => {
    const r = await run('item', '978-80-000-0003');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('matches 1 document(s)');
  });
});

describe('create-test-record', () => {
  it('runs the whole flow and prints the record id', async () => {
    const r = await run('create-test-record', '--title', 'Station 12 test', '--fond', '1', '--department', '7', '--json');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout) as { recordId: string; holdingId: string };
    const rec = fake.records.get(out.recordId)!;
    expect(rec.phase).toBe('CATALOGED');
    expect(rec.fields[0]).toMatchObject({ code: '245', subfields: [{ code: 'a', value: 'Station 12 test' }] });
    expect(fake.holdings).toEqual([{ id: out.holdingId, record: out.recordId, department: 7 }]);
    expect(fake.rejections).toEqual([]);
    // Visible to a search afterwards.
    const s = await run('search', 'document', '--name', 'Station 12 test');
    expect(s.stdout).toContain(out.recordId);
  });

  it('readable output names the record id; a failing step is named with what exists', async () => {
    const ok = await run('create-test-record', '--title', 'T', '--fond', '1', '--department', '7');
    expect(ok.stdout).toMatch(/^created test record [0-9a-f-]{36}\n/);
    fake.interceptor = (q) => (q.path === '/api/records/phase' ? { status: 409, body: { error: 'phase transition not allowed' } } : undefined);
    const bad = await run('create-test-record', '--title', 'T', '--fond', '1', '--department', '7');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/failed at step "set phase CATALOGED" \(record [0-9a-f-]{36} published\): POST \/api\/records\/phase: HTTP 409/);
  });

  it('missing or bad options are usage errors (exit 2) and nothing is sent', async () => {
    expect((await run('create-test-record', '--title', 'T', '--fond', '1')).code).toBe(2);
    const r = await run('create-test-record', '--title', 'T', '--fond', 'one', '--department', '7');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fond: must be an integer');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('sync-user', () => {
  it('syncs and prints the SyncWay per item', async () => {
    const r = await run('sync-user', 'ext-1001');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('sync of ext-1001: finished (Finished)\n  CREATE       Novák, Jan (id 42)\n');
  });

  it('--fetch shows the user without saving; unknown user exits 1', async () => {
    const r = await run('sync-user', 'ext-1001', '--fetch');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Jan Novák (id 42, PERSON, active)');
    expect(r.stdout).toContain('card C-0001001 (Adult)');
    expect(fake.synced).toEqual([]);
    const missing = await run('sync-user', 'nobody', '--fetch');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('not found');
  });
});

describe('usage and config errors', () => {
  it('no command, unknown command, unknown option, wrong arity, bad kind: exit 2', async () => {
    expect((await cli([])).code).toBe(2);
    for (const args of [['frobnicate'], ['login', '--title', 'x'], ['search'], ['search', 'book'], ['item'], ['item', 'a', 'b'], ['newest', '--bogus']]) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^stationctl portal: /);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('--help prints usage and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('create-test-record --title T --fond N --department N');
    expect((await cli(['search', '--help'])).code).toBe(0);
  });

  it('config problems exit 78: missing file, no portal section, invalid section, no credentials', async () => {
    const missing = await cli(['login', '--config', join(dir, 'nope.json')]);
    expect(missing).toMatchObject({ code: 78 });
    expect(missing.stderr).toContain('cannot read: ENOENT');
    const noSection = await cli(['login', '--config', config(undefined)]);
    expect(noSection.code).toBe(78);
    expect(noSection.stderr).toContain('no portal section');
    const invalid = await cli(['login', '--config', config({ baseUrl: fake.url, grant: 'password' })]);
    expect(invalid.code).toBe(78);
    expect(invalid.stderr).toContain('portal.username: required');
    const noCreds = await cli(['login', '--config', config({ baseUrl: fake.url })], {});
    expect(noCreds.code).toBe(78);
    expect(noCreds.stderr).toContain('no portal credentials');
    const explicitCreds = await cli(['login', '--config', config({ baseUrl: fake.url, credentialsFile: join(dir, 'portal-client') })], {});
    expect(explicitCreds.code).toBe(0);
  });

  it('an unreachable portal exits 1', async () => {
    const url = fake.url;
    await fake.close();
    const r = await cli(['newest', '--portal-url', url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ECONNREFUSED');
    fake = await FakePortal.start();
  });
});

describe('secrets', () => {
  it('never appear in stdout or stderr, with --verbose and --json, on success and failure', async () => {
    const cfg = config({ baseUrl: fake.url, grant: 'password', username: FAKE_USER.username });
    const runs: Run[] = [];
    for (const args of [
      ['login'],
      ['login', '--json'],
      ['create-test-record', '--title', 'T', '--fond', '1', '--department', '7'],
      ['sync-user', 'ext-1001', '--fetch', '--json'],
    ])
      runs.push(await cli([...args, '--verbose', '--config', cfg]));
    fake.revokeAllTokens();
    fake.refuseAllBearers = true;
    runs.push(await cli(['newest', '--verbose', '--config', cfg]));
    writeFileSync(join(dir, 'portal-client'), `{"clientId":"${FAKE_CLIENT.clientId}","clientSecret":"${FAKE_CLIENT.clientSecret}",`);
    runs.push(await cli(['login', '--config', cfg]));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 1, 78]);
    const all = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(all).toContain('GET /api/users/current -> 200'); // --verbose did log
    const secrets = [
      FAKE_CLIENT.clientSecret,
      FAKE_USER.password,
      Buffer.from(`${FAKE_CLIENT.clientId}:${FAKE_CLIENT.clientSecret}`).toString('base64'),
      ...fake.tokens.keys(),
    ];
    expect(fake.tokens.size).toBeGreaterThan(0);
    for (const s of secrets) expect(all).not.toContain(s);
  });
});
