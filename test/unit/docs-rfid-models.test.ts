/**
 * hardware/RFID.md's table of data models, kept true: its `model` column is every model the
 * decoder names; each form it lists is a note the decoder writes for a tag of that form (the
 * witnesses: the public images of src/devices/simulated/public-tag-images.ts, the same images
 * with their blocks reversed, and — for forms no public image shows — an image from the test
 * encoders); and the count of public images is what that file holds for the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTag } from '../../src/devices/rfid/models/decode.js';
import { DATA_MODELS, type DataModel } from '../../src/devices/rfid/models/types.js';
import { PUBLIC_TAG_IMAGES } from '../../src/devices/simulated/public-tag-images.js';
import { compact, danishBasicBlock, dataSet, hexBytes, reverseBlocks } from '../support/library-tags.js';

interface Row {
  readonly model: string;
  readonly forms: readonly string[];
  readonly publicImages: number;
}

function tableRows(): Row[] {
  const text = readFileSync(join(import.meta.dirname, '../../hardware/RFID.md'), 'utf8');
  const section = text.slice(text.indexOf('## Data models'), text.indexOf('## What the station sends'));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| **'))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return {
        model: (cells[2] ?? '').replace(/`/g, ''),
        forms: (cells[3] ?? '').split(';').map((f) => f.trim()),
        publicImages: Number(/^(\d+)/.exec(cells[6] ?? '')?.[1] ?? NaN),
      };
    });
}

const slix = (data: readonly number[] | Uint8Array): Uint8Array => {
  const m = new Uint8Array(112);
  m.set(data, 0);
  return m;
};

/** Tags of forms no public image shows, from the test encoders (written from the specifications). */
const ENCODED: readonly { bytes: Uint8Array; dsfid: number }[] = [
  { bytes: slix(danishBasicBlock({ version: 1, usage: 7, parts: 1, part: 1, pii: 'SWAP-1', country: 'DE', isil: '705', swapNibbles: true })), dsfid: 0 },
  { bytes: slix([...dataSet(1, 6, compact('ISO2-1', 'octet')), 0]), dsfid: 0x06 },
  { bytes: slix([0x06, ...dataSet(1, 6, compact('ISO2-2', 'octet')), 0]), dsfid: 0x00 },
];

function notesOf(model: string): Set<string> {
  const notes = new Set<string>();
  const take = (bytes: Uint8Array, dsfid: number): void => {
    const r = decodeTag({ bytes, blockSize: 4, dsfid });
    if (r.kind === 'item' && r.model === model) for (const n of r.notes) notes.add(n);
  };
  for (const t of PUBLIC_TAG_IMAGES) {
    const m = new Uint8Array(t.blocks * 4);
    m.set(hexBytes(t.hex), 0);
    take(m, 0);
    take(reverseBlocks(m, 4), 0);
  }
  for (const e of ENCODED) take(e.bytes, e.dsfid);
  return notes;
}

describe('hardware/RFID.md: the table of data models', () => {
  const rows = tableRows();

  it('lists every model the decoder names, once', () => {
    expect(rows.map((r) => r.model).sort()).toEqual([...DATA_MODELS].sort());
  });

  it.each(DATA_MODELS.map((m) => [m] as const))('%s: each form it lists is one the decoder reads (a note on a tag of that form)', (model: DataModel) => {
    const row = rows.find((r) => r.model === model)!;
    const notes = [...notesOf(model)];
    const missing = row.forms.filter((f) => !notes.some((n) => n.includes(f)));
    expect(missing, `notes seen: ${JSON.stringify(notes)}`).toEqual([]);
  });

  it.each(DATA_MODELS.map((m) => [m] as const))('%s: the count of public images is the catalogue’s', (model: DataModel) => {
    const row = rows.find((r) => r.model === model)!;
    const held = PUBLIC_TAG_IMAGES.filter((t) => 'model' in t.reading && t.reading.model === model).length;
    expect(row.publicImages).toBe(held);
  });
});
