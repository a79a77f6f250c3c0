/**
 * The unit's memory ceiling: present, MemoryHigh below MemoryMax, and both above
 * the station's measured worst cases (steady 79 MiB + the bounded hostile cases), with every number
 * explained in the unit's comment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unitMemoryLimits } from '../../bench/lib/unit-memory.js';

const TEXT = readFileSync(join(import.meta.dirname, '../../systemd/pickup-station.service'), 'utf8');

describe('systemd unit memory ceiling', () => {
  it('MemoryHigh=160M below MemoryMax=256M, both with headroom over the measured 79 MiB steady + 45 MiB flood peak', () => {
    const { highMiB, maxMiB } = unitMemoryLimits(TEXT);
    expect(highMiB).toBe(160);
    expect(maxMiB).toBe(256);
    expect(highMiB).toBeGreaterThan(79 + 45);
    expect(maxMiB).toBeGreaterThan(highMiB);
    for (const why of ['steady RSS 79', 'technician.maxStreams x technician.streamBufferBytes', 'server.maxAnswerBytes', 'after GC', 'ExecStopPost'])
      expect(TEXT).toContain(why);
  });

  it('reads systemd sizes with and without a suffix', () => {
    expect(unitMemoryLimits('MemoryHigh=1G\nMemoryMax=268435456\n')).toEqual({ highMiB: 1024, maxMiB: 256 });
    expect(unitMemoryLimits('MemoryHigh=512K\n').highMiB).toBe(0.5);
    expect(unitMemoryLimits('').maxMiB).toBeNaN();
  });
});
