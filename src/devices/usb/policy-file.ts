/**
 * Puts a rendered policy in place: atomically (temp file, fsync, rename), mode 0600 (USBGuard
 * refuses rule files others may read or write), and never over a file an administrator edited —
 * that one is kept and the new policy is written beside it as a proposal, outside the rules folder
 * (USBGuard loads every file in that folder, whatever its name).
 */
import { readFile } from 'node:fs/promises';
import { atomicWrite } from '../../storage/atomic-write.js';
import { isUnchangedPolicyFile } from './policy.js';

export type PolicyWrite =
  | { readonly kind: 'written' }
  | { readonly kind: 'unchanged' }
  /** The file in place was edited by hand (or is not ours): kept; the new policy went to `proposal`. */
  | { readonly kind: 'kept-edited'; readonly proposal: string };

async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

export async function writePolicyFile(file: string, proposal: string, text: string): Promise<PolicyWrite> {
  const current = await readIfThere(file);
  if (current === text) return { kind: 'unchanged' };
  if (current !== null && !isUnchangedPolicyFile(current)) {
    await atomicWrite(proposal, text, { mode: 0o600 });
    return { kind: 'kept-edited', proposal };
  }
  await atomicWrite(file, text, { mode: 0o600 });
  return { kind: 'written' };
}
