/** What the soak reads from the systemd unit, so its memory figures compare with the field's. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function unitText(repo: string): string {
  return readFileSync(join(repo, 'systemd/pickup-station.service'), 'utf8');
}

/** V8 options of the unit's ExecStart (e.g. --max-semi-space-size=1): RSS is only comparable with them. */
export function unitNodeOptions(repo: string): string[] {
  const exec = /^ExecStart=(.*)$/m.exec(unitText(repo))?.[1] ?? '';
  return exec.split(/\s+/).filter((w) => /^--max-[a-z-]+-size=\d+$/.test(w));
}

/** MemoryHigh= of the unit, in bytes; null when it sets none. */
export function memoryHigh(repo: string): number | null {
  const m = /^MemoryHigh=(\d+)([KMG]?)\s*$/m.exec(unitText(repo));
  if (m === null) return null;
  const unit: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };
  return Number(m[1]) * (unit[m[2] ?? ''] ?? 1);
}
