/**
 * Simulated hardware whose doors survive a restart (`hardware.stateFile`): a JSON file holding each
 * door's state and each lock output, the way a real cabinet keeps its doors where they are while the
 * station's process is dead.
 *
 *     { "doors": { "1": "CLOSED", "5": "OPEN" }, "locks": { "1": false, "5": true } }
 *
 * - At start the doors are read from it (a missing or unreadable file: every door CLOSED).
 * - Every door change and every lock output change is written to it (atomicWrite).
 * - A door state written to it from outside while the station runs — a test standing in for a
 *   person closing a door — is applied to the simulated door (the file's folder is watched). Lock
 *   states written from outside are ignored: only the station drives its locks.
 *
 * Simulation stays a configuration: the restart tests run the real daemon on it.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { atomicWriteSync } from '../../storage/atomic-write.js';
import type { DoorState, Unsubscribe } from '../types.js';
import type { SimDoors, SimLocks } from './locks-doors.js';

interface FileContent {
  readonly doors: Readonly<Record<string, DoorState>>;
  readonly locks: Readonly<Record<string, boolean>>;
}

/** The door states in the file, or {} when it is missing or not ours. */
export function readSimDoors(path: string): Record<number, DoorState> {
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
  const doors: Record<number, DoorState> = {};
  const raw = (content as Partial<FileContent> | null)?.doors;
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) if (v === 'OPEN' || v === 'CLOSED') doors[Number(k)] = v;
  }
  return doors;
}

export class SimStateFile {
  private readonly unsubscribe: Unsubscribe[] = [];
  private readonly watcher: FSWatcher;

  constructor(
    private readonly path: string,
    private readonly boxNumbers: readonly number[],
    private readonly doors: SimDoors,
    private readonly locks: SimLocks,
  ) {
    this.unsubscribe.push(
      doors.onChange(() => this.write()),
      locks.onEnergized(() => this.write()),
    );
    this.write();
    this.watcher = watch(dirname(path), (_event, file) => {
      if (file === basename(path)) this.applyOutsideChanges();
    });
    this.watcher.on('error', () => undefined);
  }

  private write(): void {
    const content: FileContent = {
      doors: Object.fromEntries(this.boxNumbers.map((n) => [n, this.doors.peek(n) ?? 'CLOSED'])),
      locks: Object.fromEntries(this.boxNumbers.map((n) => [n, this.locks.isEnergized(n)])),
    };
    try {
      atomicWriteSync(this.path, `${JSON.stringify(content)}\n`, { durable: false });
    } catch {
      // A simulation aid: the station runs on without it.
    }
  }

  private applyOutsideChanges(): void {
    for (const [box, state] of Object.entries(readSimDoors(this.path))) {
      const n = Number(box);
      if (this.boxNumbers.includes(n) && this.doors.peek(n) !== state) this.doors.set(n, state);
    }
  }

  close(): void {
    this.watcher.close();
    for (const u of this.unsubscribe) u();
  }
}
