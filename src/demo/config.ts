/** The built-in demo station: 12 simulated boxes talking to the embedded reference server. */
import type { Locale } from '../config/messages.js';
import type { ConfigInput } from '../config/schema.js';

export const DEMO_STATION_ID = '5b1f4a52-9c3e-4d7a-8e21-0c6f3b9a7d10';
/** Demo only: the embedded reference server knows it; real stations read theirs from a credential. */
export const DEMO_PASSWORD = 'DemoStation000000001';

export const DEMO_BOX_IDS: readonly string[] = Array.from({ length: 12 }, (_, i) => `0c2d7e3a-4b1f-4c8e-9a6d-${(i + 1).toString(16).padStart(12, '0')}`);

/** The AFI values the demo library uses (ISO 28560-1's: 0x07 on the shelf, 0xC2 checked out). */
export const DEMO_AFI = { secured: 0x07, unsecured: 0xc2 } as const;

/** Items tagged for the demo's RFID reader, to deposit into boxes 7–9 (the seed's own go to 1–3). */
export const DEMO_RFID_ITEMS = { danish: '31234000000033', iso: '0012345678', set: '31234000000058' } as const;

export function demoConfig(baseUrl: string, locale: Locale = 'en'): ConfigInput {
  return {
    station: { id: DEMO_STATION_ID, boxes: DEMO_BOX_IDS.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl },
    messages: { locale },
    // The model RFID reader in this process, behind the real host-mode driver: `rfid …` lays tags on it.
    hardware: { kind: 'simulated', doorSpringMs: 150, rfidReader: {} },
    // The security bit as ISO 28560-1 recommends it (a library's own values go here).
    rfid: { security: { kind: 'afi', secured: DEMO_AFI.secured, unsecured: DEMO_AFI.unsecured } },
    log: { level: 'info' },
    // A throwaway station: nothing kept across restarts (and nothing written to /var/lib).
    storage: { directory: null },
  };
}
