/**
 * A release answers from its own files who to tell about a flaw, until when it gets security fixes,
 * and what is in it: the app as the release ships it (app/, built by `npm run build`) in a release
 * folder with the files a release build writes beside it (vendor.json, security.txt, SECURITY.md,
 * sbom.cdx.json: scripts/release/inputs.sh and sbom.mjs), run as the unit and the wrapper run it.
 * `stationctl version` and `stationctl sbom` read them; the daemon's status (what `stationctl status`
 * and the technician page show) and its metric `pickup_station_support_days_left` carry them. The
 * checkout itself is a development build and says so, with no contact made up.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DaemonRig } from '../support/daemon.js';
import { TEST_SECURITY_CONTACT, addVendorFiles, stageRelease } from '../support/release-vendor.js';

const REPO = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let release: string;
let rig: DaemonRig | undefined;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'vendor-test-'));
  release = join(work, `pickup-station-${VERSION}`);
  stageRelease(release, VERSION);
});
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  rmSync(work, { recursive: true, force: true });
});

const stationctl = (root: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'app/stationctl.js'), ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] } });

function get(socketPath: string, path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('stationctl version and sbom read the release: contact, support period with days left, the CycloneDX document', () => {
  addVendorFiles(release, VERSION);
  const v = stationctl(release, 'version');
  expect(v.status, v.stderr).toBe(0);
  expect(v.stdout).toContain(`pickup-station ${VERSION}\n`);
  expect(v.stdout).toContain(`security contact: ${TEST_SECURITY_CONTACT}`);
  expect(v.stdout).toMatch(/security fixes: {3}until 2099-12-31 \(\d+ days left\)\n/);
  const sbom = stationctl(release, 'sbom');
  expect(sbom.status).toBe(0);
  expect(sbom.stdout).toBe(readFileSync(join(release, 'sbom.cdx.json'), 'utf8'));
  expect(JSON.parse(sbom.stdout)).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5' });
});

it('a release whose support has ended says so; a damaged vendor.json is reported, not believed', () => {
  addVendorFiles(release, VERSION, 'x64', { securityContact: TEST_SECURITY_CONTACT, supportUntil: '2020-06-30' });
  expect(stationctl(release, 'version').stdout).toContain('security fixes:   ENDED on 2020-06-30: no more security fixes for this release line');
  writeFileSync(join(release, 'vendor.json'), '{"securityContact":"call us","supportUntil":"2099-12-31"}');
  const bad = stationctl(release, 'version');
  expect(bad.status).toBe(1);
  expect(bad.stdout).toContain('security fixes:   UNKNOWN: vendor.json: securityContact is not a mailto:, https: or tel: URI');
});

it('the checkout is a development build: no contact, no support period, no SBOM', () => {
  const v = stationctl(REPO, 'version');
  expect(v.status).toBe(0);
  expect(v.stdout).toContain('development build: no security contact, no support period (not a release)');
  expect(v.stdout).not.toContain('mailto:');
  const sbom = stationctl(REPO, 'sbom');
  expect(sbom.status).toBe(1);
  expect(sbom.stderr).toContain('no sbom.cdx.json');
});

it(
  'the daemon run from the release shows its support period in the status (stationctl status) and counts it down as pickup_station_support_days_left',
  { timeout: 60_000 },
  async () => {
    addVendorFiles(release, VERSION);
    rig = await DaemonRig.create();
    const firstState = rig.server.waitForRequest((r) => r.endpoint === 'state', 30_000);
    rig.start({}, { node: process.execPath, argv: [join(release, 'app/main.js'), 'run', '--config', rig.configFile] });
    expect((await firstState).status).toBe(200);
    await rig.idle();
    const status = (await rig.tech('GET', '/api/status')).body;
    expect(status['vendor']).toMatchObject({ kind: 'release', securityContact: TEST_SECURITY_CONTACT, supportUntil: '2099-12-31', problem: null });
    const daysLeft = (status['vendor'] as { supportDaysLeft: number }).supportDaysLeft;
    expect(daysLeft).toBeGreaterThan(26_000);
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, rig.token);
    const ctl = stationctl(release, 'status', '--socket', rig.socket, '--token-file', tokenFile);
    expect(ctl.status, ctl.stderr).toBe(0);
    expect(ctl.stdout).toContain(`support     until 2099-12-31 (${daysLeft} days left)`);
    expect(ctl.stdout).toContain(`security    report flaws to ${TEST_SECURITY_CONTACT}`);
    const metrics = await get(rig.socket, '/metrics', rig.token);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(new RegExp(`^pickup_station_support_days_left\\{station="[^"]+",support_until="2099-12-31"\\} ${daysLeft}$`, 'm'));
  },
);
