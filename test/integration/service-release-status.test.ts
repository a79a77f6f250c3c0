/**
 * What an upgrade reads to call a release healthy (release.json in the runtime directory, kept in
 * step with the station's mode) and what the fleet alerts on (the installed version beside the
 * running one in the metrics).
 */
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModeKind } from '../../src/station/core-types.js';
import { firstStateOf, keepReleaseStatus, readInstalledVersion, RELEASE_STATUS_FILE } from '../../src/service/release-status.js';
import { readInstallRecord, releaseView } from '../../src/service/install-record.js';
import { formatRelease } from '../../src/cli/technician/format.js';
import type { StatusBody } from '../../src/technician/status.js';
import { VERSION } from '../../src/version.js';
import { createLogger } from '../../src/log.js';
import { idle, startDebugHarness } from '../support/technician-harness.js';
import { STATION } from '../support/shared.js';
import { parseExposition } from '../support/prom-text.js';

const silentLogger = () => createLogger('error', { write: () => undefined });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'release-status-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A station whose mode the test moves; listeners are called as the host's observer would. */
function station(initial: ModeKind) {
  let mode = initial;
  const listeners = new Set<() => void>();
  return {
    source: { mode: () => mode, subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l)) },
    set(next: ModeKind) {
      mode = next;
      for (const l of listeners) l();
    },
    listeners,
  };
}

const readStatus = () => JSON.parse(readFileSync(join(dir, RELEASE_STATUS_FILE), 'utf8')) as Record<string, unknown>;

describe('release.json', () => {
  it('says pending until the first /state finished, then answered or deactivated, with pid, version and the /healthz address', () => {
    const s = station('starting');
    const status = keepReleaseStatus(s.source, {
      runtimeDirectory: dir,
      version: '1.2.0',
      healthz: 'http://127.0.0.1:8470/healthz',
      log: silentLogger(),
      pid: 4242,
    });
    expect(readStatus()).toEqual({ pid: 4242, version: '1.2.0', firstState: 'pending', healthz: 'http://127.0.0.1:8470/healthz' });
    s.set('deactivated');
    expect(readStatus()['firstState']).toBe('deactivated');
    s.set('idle');
    expect(readStatus()['firstState']).toBe('answered');
    status.close();
    expect(existsSync(join(dir, RELEASE_STATUS_FILE))).toBe(false);
    expect(s.listeners.size).toBe(0);
  });

  it('every mode maps to the first /state it implies', () => {
    expect(firstStateOf('starting')).toBe('pending');
    expect(firstStateOf('deactivated')).toBe('deactivated');
    for (const m of ['idle', 'opening', 'closing', 'disabled'] as const) expect(firstStateOf(m)).toBe('answered');
  });

  it('without a runtime directory (not under systemd) writes nothing', () => {
    const s = station('idle');
    const status = keepReleaseStatus(s.source, { runtimeDirectory: null, version: '1', healthz: null, log: silentLogger() });
    s.set('deactivated');
    status.close();
    expect(existsSync(join(dir, RELEASE_STATUS_FILE))).toBe(false);
  });
});

describe('installed vs running version in the metrics', () => {
  const file = () => join(dir, 'install-status.json');

  it('reads the installed version; no file, bad JSON or an odd label value count as unknown', () => {
    expect(readInstalledVersion(file())).toBeNull();
    writeFileSync(file(), '{"installed":"1.3.0","running":"1.2.0","result":"rolled-back"}\n');
    expect(readInstalledVersion(file())).toBe('1.3.0');
    writeFileSync(file(), '{"installed":"1.3.0\\"} 1\\nfake_metric 1"}');
    expect(readInstalledVersion(file())).toBeNull();
    writeFileSync(file(), 'not json');
    expect(readInstalledVersion(file())).toBeNull();
  });

  it('/metrics: release_info carries both versions and release_mismatch is 1 only when they differ (what the fleet alert reads)', async () => {
    const d = await startDebugHarness({ metrics: { installStatusFile: file() } });
    try {
      await idle(d);
      const scrape = async () => {
        const r = await d.call('GET', '/metrics', { token: d.tokens.metrics });
        return parseExposition(r.text);
      };
      const station = STATION.id;
      let m = await scrape();
      expect(m.value('pickup_station_release_info', { station, running: VERSION, installed: VERSION })).toBe(1);
      expect(m.value('pickup_station_release_mismatch', { station })).toBe(0);
      writeFileSync(file(), '{"installed":"9.9.9","running":"0.1.0","result":"rolled-back"}');
      m = await scrape();
      expect(m.find('pickup_station_release_info', { station }).map((x) => x.labels)).toEqual([{ station, running: VERSION, installed: '9.9.9' }]);
      expect(m.value('pickup_station_release_mismatch', { station })).toBe(1);
      writeFileSync(file(), `{"installed":"${VERSION}","running":"${VERSION}","result":"ok"}`);
      expect((await scrape()).value('pickup_station_release_mismatch', { station })).toBe(0);
    } finally {
      await d.stop();
    }
  });
});

describe("the installer's record: proof, upgrade pending, known bad", () => {
  const file = () => join(dir, 'install-status.json');
  const record = (over: Record<string, unknown>) =>
    writeFileSync(
      file(),
      `${JSON.stringify({ installed: VERSION, running: VERSION, proof: 'proven', proven: VERSION, pending: '', switching: '', knownBad: '', knownBadReason: '', attempts: 0, result: 'ok', reason: '', at: '2026-11-26T20:00:00Z', ...over })}\n`,
    );

  it('reads what the installer wrote; a damaged value is no value (nothing of it reaches a label)', () => {
    expect(readInstallRecord(file())).toBeNull();
    record({ installed: '1.3.0', pending: '1.3.0', knownBad: '1.2.0', knownBadReason: 'it exited\n(exit status 1)', result: 'pending' });
    expect(readInstallRecord(file())).toEqual({
      installed: '1.3.0',
      running: VERSION,
      proof: 'proven',
      pending: '1.3.0',
      knownBad: { version: '1.2.0', reason: 'it exited (exit status 1)' },
      result: 'pending',
    });
    record({ pending: '1.3.0"} 1\nfake 1', proof: 'maybe', knownBad: '../x', result: 'Rolled back!' });
    expect(readInstallRecord(file())).toMatchObject({ pending: null, proof: null, knownBad: null, result: null });
    writeFileSync(file(), '[1,2]');
    expect(readInstallRecord(file())).toBeNull();
  });

  it('the release view: proven only when the record is about this release; a pending release other than this one; the status line', () => {
    record({ proof: 'unproven' });
    const unproven = releaseView(readInstallRecord(file()), VERSION)!;
    expect(unproven).toMatchObject({ running: VERSION, proven: false, pending: null, knownBad: null });
    expect(formatRelease(unproven)).toBe(`running ${VERSION} (NOT PROVEN yet: its proof was cut off or is under way)`);
    record({ installed: '9.9.9', pending: '9.9.9', knownBad: '9.9.8', knownBadReason: 'no READY=1 within 180s', result: 'pending' });
    const pending = releaseView(readInstallRecord(file()), VERSION)!;
    expect(formatRelease(pending)).toBe(
      `running ${VERSION} (proven); installed 9.9.9; UPGRADE PENDING: 9.9.9 (switches when the station is free); known bad: 9.9.8 (no READY=1 within 180s; not tried again)`,
    );
    record({ running: '0.0.1' });
    expect(releaseView(readInstallRecord(file()), VERSION)!.proven).toBeNull();
    expect(releaseView(null, VERSION)).toBeNull();
  });

  it('/api/status and /metrics show it: release_proven, upgrade_pending and release_known_bad follow the file', async () => {
    const d = await startDebugHarness({ metrics: { installStatusFile: file() } });
    try {
      await idle(d);
      const station = STATION.id;
      const scrape = async () => parseExposition((await d.call('GET', '/metrics', { token: d.tokens.metrics })).text);
      const status = async () => JSON.parse((await d.call('GET', '/api/status', { token: d.tokens.read })).text) as StatusBody;
      expect((await status()).release).toBeNull();
      let m = await scrape();
      expect(m.find('pickup_station_release_proven', { station })).toEqual([]);
      expect(m.value('pickup_station_upgrade_pending', { station, version: '' })).toBe(0);
      expect(m.value('pickup_station_release_known_bad', { station, version: '' })).toBe(0);

      record({ installed: '9.9.9', pending: '9.9.9', result: 'pending' });
      expect((await status()).release).toEqual({ running: VERSION, installed: '9.9.9', proven: true, pending: '9.9.9', knownBad: null, result: 'pending' });
      m = await scrape();
      expect(m.value('pickup_station_release_proven', { station })).toBe(1);
      expect(m.value('pickup_station_upgrade_pending', { station, version: '9.9.9' })).toBe(1);

      record({ installed: '9.9.9', proof: 'unproven', knownBad: '9.9.9', knownBadReason: 'it exited', result: 'rolled-back' });
      expect((await status()).release).toMatchObject({ proven: false, pending: null, knownBad: { version: '9.9.9', reason: 'it exited' } });
      m = await scrape();
      expect(m.value('pickup_station_release_proven', { station })).toBe(0);
      expect(m.value('pickup_station_upgrade_pending', { station, version: '' })).toBe(0);
      expect(m.value('pickup_station_release_known_bad', { station, version: '9.9.9' })).toBe(1);
    } finally {
      await d.stop();
    }
  });
});
