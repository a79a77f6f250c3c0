/**
 * Puts a generated file in place: atomically (temp file, fsync, rename), with its mode (USBGuard
 * refuses rule files others may read or write: 0600; udev's are 0644), and never over a file an
 * administrator edited — that one is kept and the new text is written beside it as a proposal,
 * outside the folder that loads it (USBGuard loads every file in its rules folder, whatever its name).
 */
import { readFile } from 'node:fs/promises';
import { atomicWrite } from '../../storage/atomic-write.js';

export type PolicyWrite =
  | { readonly kind: 'written' }
  | { readonly kind: 'unchanged' }
  /** The file in place was edited by hand (or is not ours): kept; the new text went to `proposal`. */
  | { readonly kind: 'kept-edited'; readonly proposal: string };

export interface GeneratedFile {
  readonly file: string;
  readonly proposal: string;
  readonly text: string;
  readonly mode: number;
  /** Whether a file's text is one this command wrote, unchanged since. */
  readonly isUnchanged: (text: string) => boolean;
}

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

export async function writeGeneratedFile(g: GeneratedFile): Promise<PolicyWrite> {
  const current = await readIfThere(g.file);
  if (current === g.text) return { kind: 'unchanged' };
  if (current !== null && !g.isUnchanged(current)) {
    await atomicWrite(g.proposal, g.text, { mode: g.mode });
    return { kind: 'kept-edited', proposal: g.proposal };
  }
  await atomicWrite(g.file, g.text, { mode: g.mode });
  return { kind: 'written' };
}
