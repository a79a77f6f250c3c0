/**
 * What the RFID rules (rfid.ts) show without acting: their defaults, an item of several parts still
 * missing some, the security bit waiting for the item to come back. Pure functions of the config and
 * the state, so that the display (display.ts) derives its screen from them without importing the
 * rules that act.
 */
import type { RfidTag } from '../../devices/types.js';
import type { CoreConfig, CoreState, HandlingNote, RfidCoreConfig } from '../core-types.js';

/** Without an `rfid` section: sets need all their parts, the security bit is left alone. */
export const RFID_DEFAULTS: RfidCoreConfig = { sets: 'require-all', security: { kind: 'off' }, securityWindowMs: 30_000, securityRetryMs: 1_000 };

export function settings(config: CoreConfig): RfidCoreConfig {
  return config.rfid ?? RFID_DEFAULTS;
}

/** Parts of one item lying on the reader: how many of how many; null when it is no set. */
export function missingParts(parts: readonly RfidTag[]): { missing: number; total: number } | null {
  let total = 0;
  const have = new Set<number>();
  for (const t of parts) {
    if (t.data.kind !== 'item' || t.data.set === null) continue;
    total = Math.max(total, t.data.set.of);
    have.add(t.data.set.part);
  }
  return total > 1 ? { missing: Math.max(0, total - have.size), total } : null;
}

/**
 * How the parts of one item must be handled, from their media format (ISO 28560-1's codes 5 and 6);
 * careful handling wins over small item when parts disagree. null: nothing to say.
 */
export function handlingNote(parts: readonly RfidTag[]): HandlingNote | null {
  const formats = new Set(parts.map((t) => (t.data.kind === 'item' ? t.data.mediaFormat : null)));
  if (formats.has(5)) return 'careful-handling';
  if (formats.has(6)) return 'small-item';
  return null;
}

/** The line the display adds for the deposit under way (its item's handling note), or null. */
export function handlingLine(config: CoreConfig, s: CoreState): string | null {
  const note = s.rfid.handling;
  if (note === null) return null;
  return note === 'careful-handling' ? config.messages.rfidCarefulHandling : config.messages.rfidSmallItem;
}

/** An item of several parts waiting on a reader for its missing ones (the idle screen counts them), or null. */
export function waitingSet(config: CoreConfig, s: CoreState): { missing: number; total: number } | null {
  if (settings(config).sets !== 'require-all') return null;
  for (const field of Object.values(s.rfid.fields)) {
    const byItem = new Map<string, RfidTag[]>();
    for (const t of field.tags) {
      if (t.data.kind !== 'item' || t.data.set === null) continue;
      const key = `item:${t.data.itemId}`;
      if (field.done.includes(key)) continue;
      byItem.set(key, [...(byItem.get(key) ?? []), t]);
    }
    if (byItem.size !== 1) continue;
    for (const parts of byItem.values()) {
      const m = missingParts(parts);
      if (m !== null && m.missing > 0) return m;
    }
  }
  return null;
}

/** The screen the security job asks for (the item must go back on the reader), or null. */
export function securityScreen(config: CoreConfig, s: CoreState): readonly string[] | null {
  const job = s.rfid.job;
  return job !== null && job.lastReason !== null && job.remaining.length > 0 ? config.messages.rfidPutBack : null;
}
