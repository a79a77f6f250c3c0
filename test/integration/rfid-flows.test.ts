/**
 * Library tags through the whole station in one process: the real host-mode reader driver on the
 * model reader's in-process line (`hardware.rfidReader: {}`, what the demo runs), the real runtime
 * and protocol client, the reference server on 127.0.0.1. The model is the hardware; everything
 * from the driver's bytes up is the field's code.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { iso28560_2Tag, iso28560_3Set, iso28560_3Tag } from '../../src/devices/simulated/tag-images.js';
import type { RequestRecord } from '../../src/reference-server/index.js';
import { StationMetrics } from '../../src/metrics/registry.js';
import { isCounted } from '../../src/metrics/view.js';
import { startHarness, type Harness } from '../support/harness.js';
import { parseExposition } from '../support/prom-text.js';
import { box, STATION, waitFor } from '../support/shared.js';

const SECURED = 0x07;
const UNSECURED = 0xc2;
const DANISH = '31234000000033';
const ISO2 = '0012345678';
const SET = '31234000000058';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const deposits = [DANISH, ISO2, SET].map((identifierValue, i) => ({
  identifierValue,
  identifierType: 'RFID' as const,
  stationId: STATION.id,
  boxId: box(i + 1),
}));

async function rfidStation(security: 'afi' | 'off' = 'afi', extra: { securityWindowMs?: number } = {}): Promise<Harness> {
  const harness = await startHarness(
    {
      hardware: { kind: 'simulated', doorSpringMs: 20, rfidReader: { inventoryIntervalMs: 20, answerTimeoutMs: 200 } },
      rfid: { security: security === 'afi' ? { kind: 'afi', secured: SECURED, unsecured: UNSECURED } : { kind: 'off' }, securityRetryMs: 100, ...extra },
    },
    { deposits },
  );
  await waitFor('idle and the reader up', () => {
    const s = harness.station.runtime.snapshot();
    return s.mode.kind === 'idle' && s.inFlight === null && harness.sim.rfidReaders.every((r) => r.health().ok);
  });
  return harness;
}

const identifies = (h: Harness): RequestRecord[] => h.server.requests.filter((r) => r.endpoint === 'item-identify');

describe('library tags on the reader', () => {
  it('a Danish-model tag deposits by its item number, once, and its AFI is cleared and verified after box-open', async () => {
    h = await rfidStation();
    const tag = iso28560_3Tag({ itemId: DANISH, afi: SECURED, country: 'DK', library: '710100' });
    h.sim.placeTag(tag);
    const identify = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(identify.body).toMatchObject({ identifierType: 'RFID', identifierValue: DANISH });
    expect(identify.response).toMatchObject({ type: 'box-open', boxes: [box(1)] });
    await waitFor('AFI written', () => h!.sim.rfidModel?.tag(tag.uid)?.afi === UNSECURED);
    await waitFor('verified', () => h!.logs.some((l) => l.includes('security bit cleared and verified')));
    // Still on the reader for many inventory rounds: reported once.
    await waitFor('rounds pass', () => (h!.sim.rfidModel?.seen.length ?? 0) > 40);
    expect(identifies(h)).toHaveLength(1);
  });

  it('a 28560-2 tag deposits by its Primary Item Identifier (leading zeros kept)', async () => {
    h = await rfidStation('off');
    h.sim.placeTag(iso28560_2Tag({ itemId: ISO2, afi: SECURED, owner: 'CZ-PrNK' }));
    const identify = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(identify.body).toMatchObject({ identifierType: 'RFID', identifierValue: ISO2 });
  });

  it('a set of three is reported once all three parts lie on the reader; meanwhile the display counts the missing', async () => {
    h = await rfidStation('off');
    const [p1, p2, p3] = iso28560_3Set({ itemId: SET, of: 3, afi: SECURED });
    h.sim.placeTag(p1!);
    h.sim.placeTag(p2!);
    await waitFor('one part missing shown', () => h!.sim.display.lastShown().join(' ').includes('1 missing'));
    expect(identifies(h)).toHaveLength(0);
    h.sim.placeTag(p3!);
    const identify = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(identify.body).toMatchObject({ identifierValue: SET });
    await waitFor('rounds pass', () => (h!.sim.rfidModel?.seen.length ?? 0) > 60);
    expect(identifies(h)).toHaveLength(1);
  });

  it('a write that never verifies: "put the item back", then the next /state names it and the deposit stands', async () => {
    h = await rfidStation('afi', { securityWindowMs: 1_000 });
    const station = h.station;
    const metrics = new StationMetrics({ processMetrics: false, eventLoopResolutionMs: 1_000 });
    const recorder = metrics.add({ stationId: STATION.id, current: () => ({ runtime: station.runtime, hardware: h!.sim, boxes: [] }) });
    station.runtime.onEvent((e) => isCounted(e) && recorder.note(e));
    const model = h.sim.rfidModel!;
    model.faults.failWrites = 1_000;
    h.sim.placeTag(iso28560_3Tag({ itemId: DANISH, afi: SECURED }));
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    await waitFor('put back shown', () => h!.sim.display.lastShown().join(' ').includes('Put the item back'));
    const report = await h.server.waitForRequest(
      (r) => r.endpoint === 'state' && String((r.body as { errorMessage?: unknown }).errorMessage).includes('RFID security bit not cleared'),
    );
    expect((report.body as { errorMessage: string }).errorMessage).toContain(DANISH);
    expect(h.station.runtime.snapshot().rfid.failures).toHaveLength(1);
    expect(h.journal.records.some((e) => e.t === 'note' && e.note.startsWith('RFID security bit not cleared'))).toBe(true);
    expect(h.sim.locks.pulses.map((p) => p.box)).toEqual([1]);
    // The fleet sees it: one item not cleared (an alert), the failed writes, the tag read; no item number or UID in a label.
    const text = await metrics.render();
    const e = parseExposition(text);
    expect(e.value('pickup_station_rfid_security_not_cleared_total')).toBe(1);
    expect(e.value('pickup_station_rfid_security_writes_total', { result: 'failed' })).toBeGreaterThan(0);
    expect(e.value('pickup_station_rfid_security_writes_total', { result: 'verified' })).toBe(0);
    expect(e.value('pickup_station_rfid_tags_read_total')).toBe(1);
    expect(e.value('pickup_station_rfid_tags_unreadable_total', { kind: 'damaged' })).toBe(0);
    expect(text).not.toContain(DANISH);
    expect(text).not.toMatch(/E0[0-9A-F]{14}/);
  });

  it('the reader keeps the last tags with their model, problem, owner and media format, UIDs and owners masked (what the technician status lists)', async () => {
    h = await rfidStation('off');
    const danish = iso28560_3Tag({ itemId: DANISH, afi: SECURED, form: 'full', country: 'DE', library: 'MUS-815718', mediaFormat: 5 });
    const blank = iso28560_3Tag({ itemId: '', afi: SECURED });
    h.sim.placeTag(danish);
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    h.sim.placeTag(blank);
    await waitFor('two tags read', () => (h!.sim.rfidReaders[0]?.stats().lastTags.length ?? 0) === 2);
    const stats = h.sim.rfidReaders[0]!.stats();
    expect(stats.lastTags).toEqual([
      { uid: `…${danish.uid.slice(-3)}`, model: 'iso28560-3', problem: null, owner: '***718 (13)', media: 'careful handling' },
      { uid: `…${blank.uid.slice(-3)}`, model: null, problem: 'blank', owner: null, media: null },
    ]);
    expect(JSON.stringify(stats)).not.toContain('MUS-815718');
    expect(stats.unreadable.blank).toBe(1);
  });
});
