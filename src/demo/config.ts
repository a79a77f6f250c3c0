/** The built-in demo station: 12 simulated boxes talking to the embedded reference server. */
import type { Locale } from '../config/messages.js';
import type { ConfigInput } from '../config/schema.js';

export const DEMO_STATION_ID = '5b1f4a52-9c3e-4d7a-8e21-0c6f3b9a7d10';
/** Demo only: the embedded reference server knows it; real stations read theirs from a credential. */
export const DEMO_PASSWORD = 'DemoStation000000001';

export const DEMO_BOX_IDS: readonly string[] = Array.from({ length: 12 }, (_, i) => `0c2d7e3a-4b1f-4c8e-9a6d-${(i + 1).toString(16).padStart(12, '0')}`);

export function demoConfig(baseUrl: string, locale: Locale = 'en'): ConfigInput {
  return {
    station: { id: DEMO_STATION_ID, boxes: DEMO_BOX_IDS.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl },
    messages: { locale },
    hardware: { kind: 'simulated', doorSpringMs: 150 },
    log: { level: 'info' },
    // A throwaway station: nothing kept across restarts (and nothing written to /var/lib).
    storage: { directory: null },
  };
}
