/**
 * Patrons' identifiers never reach anything the station writes or shows in full, at debug level:
 * a deposit by a patron card's UID typed by a keyboard-wedge RFID reader (the HID driver with
 * node-hid replaced at its last boundary, HidBackend: the same reports a reader sends), a PIN
 * pickup on the keypad, and portal lookups (`stationctl portal item`, `sync-user --fetch`, -v)
 * answering a patron's name and card. Then every log line, both live streams of the technician
 * port, the technician status and every file under storage.directory (the journal, the PIN
 * throttle) are searched for the full values (test/support/secrets.ts): none found — while the
 * masked previews are there, so the search looked at the right text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { startStation } from '../../src/app.js';
import { runPortalCli } from '../../src/cli/portal.js';
import { validateConfig } from '../../src/config/load.js';
import type { HidBackend, HidDeviceInfo, HidHandle } from '../../src/devices/hid/link.js';
import { HidScanner } from '../../src/devices/hid/scanner.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';
import { createLogger, LogRing, maskIdentifier } from '../../src/log.js';
import { defaultSeed, ReferenceServer, SEED_PIN_SINGLE } from '../../src/reference-server/index.js';
import { startSupervised, type Supervised } from '../../src/supervised.js';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { FAKE_CLIENT, FAKE_USER, FakePortal } from '../support/fake-portal.js';
import { typeReports } from '../support/hid-reports.js';
import { filesUnder, findLeaksIn } from '../support/secrets.js';
import { box, sleep, STATION, waitFor } from '../support/shared.js';

/** A patron's MIFARE card as a wedge reader types it (7-byte UID, hex). */
const CARD_UID = '04A2B3C4D5E680';
const VID = 0x08ff;
const PID = 0x0009;

/** The reader on its USB port: node-hid's place, nothing else replaced. */
class WedgeReaderPort implements HidBackend {
  private data: ((b: Buffer) => void) | null = null;
  readonly info: HidDeviceInfo = { path: '/dev/hidraw7', vendorId: VID, productId: PID, interface: 0, usagePage: 1, usage: 6, product: 'RFID wedge' };
  devices(): Promise<readonly HidDeviceInfo[]> {
    return Promise.resolve([this.info]);
  }
  open(): HidHandle {
    return { onData: (l) => (this.data = l), onError: () => undefined, close: () => undefined };
  }
  get open_(): boolean {
    return this.data !== null;
  }
  type(text: string): void {
    for (const r of typeReports('us', text)) this.data?.(Buffer.from(r));
  }
}

/** Poll an async condition (the technician status) until it holds. */
async function until(what: string, predicate: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await predicate())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

it(
  'a card UID through a wedge reader, a PIN and portal lookups at debug level: no full identifier in any log, stream, status or state file',
  { timeout: 120_000 },
  async () => {
    const server = new ReferenceServer({
      stations: [STATION],
      ...defaultSeed(STATION),
      deposits: [...defaultSeed(STATION).deposits, { identifierValue: CARD_UID, identifierType: 'RFID', stationId: STATION.id, boxId: box(1) }],
    });
    const url = await server.start();
    cleanup.push(() => server.stop());
    const storageDir = mkdtempSync(join(tmpdir(), 'privacy-state-'));
    cleanup.push(() => rmSync(storageDir, { recursive: true, force: true }));
    const token = newToken();
    const { config, problems } = validateConfig({
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin, answerTimeoutMs: 5_000 },
      hardware: { kind: 'simulated', doorSpringMs: 20 },
      log: { level: 'debug' },
      storage: { directory: storageDir },
      timing: { heartbeatIntervalMs: 1_000, messageMs: 300, duplicateScanWindowMs: 200, doorOpenTimeoutMs: 1_000 },
      locks: { pulseMs: 50 },
      technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'privacy', scope: 'service', hash: hashToken(token) }] },
    });
    if (!config) throw new Error(`config invalid: ${JSON.stringify(problems)}`);

    const logs: string[] = [];
    const ring = new LogRing(1000);
    const log = createLogger('debug', new Writable({ write: (c: Buffer, _e, cb) => (logs.push(c.toString()), cb()) }), { ring });
    const sim = new SimulatedHardware({ boxNumbers: STATION.boxes.map((_, i) => i + 1), doorSpringMs: 20, inputVoltage: 12.4, internetSignalStrength: 87 });
    const port = new WedgeReaderPort();
    const wedge = new HidScanner({
      match: { vendorId: VID, productId: PID },
      reportId: null,
      presenceCheckMs: 60_000,
      reconnect: { initialMs: 100, maxMs: 1_000, factor: 2 },
      openTimeoutMs: 1_000,
      log,
      backend: port,
      identifierType: 'RFID',
      layout: 'us',
      maxLength: 64,
      frameTimeoutMs: 1_000,
    });
    await wedge.start();
    const hardware: StationHardware = {
      locks: sim.locks,
      doors: sim.doors,
      scanners: [sim.barcode, wedge],
      keypad: sim.keypad,
      cancelButton: sim.cancelButton,
      display: sim.display,
      power: sim.power,
      tamper: sim.tamper,
      devices: () => [...sim.devices(), wedge],
      close: async () => {
        await wedge.close();
        await sim.close();
      },
    };
    const station = await startStation({ config, password: STATION.password, log, hardware });
    const wp: Supervised = await startSupervised({
      station,
      loaded: { config, password: STATION.password, warnings: [] },
      configFile: null,
      env: {},
      log,
      ring,
      start: () => Promise.reject(new Error('no restart in this test')),
      onFatal: (e) => {
        throw e;
      },
    });
    cleanup.push(() => wp.stop());
    const tech = wp.port?.url ?? '';
    const auth = { authorization: `Bearer ${token}` };
    const streams: Record<string, string> = {};
    const aborts = new AbortController();
    cleanup.push(() => aborts.abort());
    for (const path of ['/api/events/stream', '/api/logs/stream']) {
      streams[path] = '';
      const res = await fetch(tech + path, { headers: auth, signal: aborts.signal });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            streams[path] += decoder.decode(value, { stream: true });
          }
        } catch {
          // aborted at the end
        }
      })();
    }
    const statuses: string[] = [];
    const status = async (): Promise<Record<string, unknown>> => {
      const text = await (await fetch(`${tech}/api/status?events=100`, { headers: auth })).text();
      statuses.push(text);
      return JSON.parse(text) as Record<string, unknown>;
    };
    await waitFor('the wedge reader opened', () => port.open_, 30_000);
    await until('the station idle', async () => (await status())['mode'] === 'idle', 30_000);

    // The deposit: the patron's card on the wedge reader, box 1 opens and closes.
    port.type(CARD_UID);
    await waitFor('box 1 open', () => sim.doors.peek(1) === 'OPEN', 30_000);
    await status();
    sim.closeDoor(1);
    await until('box 1 reported closed', async () => (await status())['inFlight'] === null && sim.doors.peek(1) === 'CLOSED', 30_000);
    // The pickup: a reader's PIN, box 4 opens and closes.
    sim.typePin(SEED_PIN_SINGLE);
    await waitFor('box 4 open', () => sim.doors.peek(4) === 'OPEN', 30_000);
    sim.closeDoor(4);
    await until(
      'the station idle again',
      async () => {
        const s = await status();
        return s['mode'] === 'idle' && s['inFlight'] === null;
      },
      5_000,
    );

    // Portal lookups as a technician runs them, verbose (every request logged to stderr).
    const portal = await FakePortal.start();
    cleanup.push(() => portal.close());
    const portalDir = mkdtempSync(join(tmpdir(), 'privacy-portal-'));
    cleanup.push(() => rmSync(portalDir, { recursive: true, force: true }));
    writeFileSync(join(portalDir, 'portal-client'), JSON.stringify({ ...FAKE_CLIENT, password: FAKE_USER.password }));
    writeFileSync(join(portalDir, 'config.json'), JSON.stringify({ portal: { baseUrl: portal.url } }));
    let portalLog = '';
    let portalAnswer = '';
    for (const args of [
      ['sync-user', 'ext-1001', '--fetch'],
      ['item', '2500012345'],
    ]) {
      const code = await runPortalCli([...args, '-v', '--config', join(portalDir, 'config.json')], {
        stdout: { write: (s: string) => (portalAnswer += s) },
        stderr: { write: (s: string) => (portalLog += s) },
        env: { CREDENTIALS_DIRECTORY: portalDir },
      });
      expect(code).toBe(0);
    }
    // The answer the technician asked for names the patron (stdout, to them); the log does not.
    expect(portalAnswer).toContain('Jan Novák');
    expect(portalLog).toContain('POST /api/sync/user/fetch -> 200');

    await wp.stop();
    aborts.abort();
    const sources: Record<string, string> = {
      log: logs.join(''),
      'portal -v log': portalLog,
      'technician status': statuses.join('\n'),
      ...Object.fromEntries(Object.entries(streams).map(([p, t]) => [`live stream ${p}`, t])),
      ...Object.fromEntries(filesUnder(storageDir)),
    };
    // The search looks where the values would be: the scan and the PIN are in the log, masked.
    expect(sources['log']).toContain(`"identifierValue":"${maskIdentifier(CARD_UID)}"`);
    expect(sources['log']).toContain('PIN entered');
    expect(Object.keys(sources).filter((k) => k.startsWith(storageDir)).length).toBeGreaterThan(0);
    const identifiers = [CARD_UID, CARD_UID.toLowerCase(), 'ext-1001', 'Novák', 'C-0001001', '2500012345'];
    expect(findLeaksIn(sources, { stationId: STATION.id, password: STATION.password, tokens: [token], pins: [SEED_PIN_SINGLE], identifiers })).toEqual([]);
  },
);
