/**
 * The reference server answers in the station's language (Accept-Language), Czech or English, like
 * a real library server: a station with `messages.locale: "cs"` shows Czech texts throughout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_TEXTS, serverLanguage } from '../../src/reference-server/messages.js';
import { SEED_BARCODES, SEED_UNKNOWN_PIN } from '../../src/reference-server/index.js';
import { waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('serverLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['cs', 'cs'],
    ['cs-CZ, cs;q=0.9', 'cs'],
    ['de-DE, cs;q=0.5', 'cs'],
    ['en;q=0.8, cs;q=0.9', 'cs'],
    ['cs;q=0.4, en-GB', 'en'],
    ['cs;q=0', 'en'],
    ['fr', 'en'],
  ] as const)('%j -> %s', (header, lang) => {
    expect(serverLanguage(header)).toBe(lang);
  });

  it('both languages have a text for every exception type', () => {
    expect(Object.keys(SERVER_TEXTS.cs.exceptions).sort()).toEqual(Object.keys(SERVER_TEXTS.en.exceptions).sort());
  });
});

describe('a Czech station against the reference server', () => {
  it('gets its prompt, its box texts and its exceptions in Czech', async () => {
    h = await startHarness({ messages: { locale: 'cs' } });
    await waitFor('Czech prompt', () => h!.sim.display.lastShown().join('|') === 'Naskenujte položku|nebo zadejte PIN');
    h.sim.typePin(SEED_UNKNOWN_PIN);
    await waitFor('Czech exception', () => h!.sim.display.lastShown().join('|') === 'Neplatný PIN|zkuste to znovu');
    await waitFor('message over', () => h!.station.runtime.snapshot().overlay === null, 2_000);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('Czech closing text', () => h!.sim.display.lastShown().join('|') === 'Vložte položku do schránky 1|a zavřete dvířka');
  });
});
