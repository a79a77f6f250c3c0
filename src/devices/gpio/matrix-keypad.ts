/**
 * A matrix keypad on GPIO: rows are outputs, columns are inputs with pull-ups (wired per the
 * profile; columns active-low, so "active" = pulled down through a pressed key onto an active row).
 *
 * Idle, every row is active, so any key press makes its column active and fires an edge. No
 * polling: an edge (re)starts the debounce timer; when it ends the keypad is scanned once (one
 * row active at a time, `settleMs` for the level to reach the column) and every row is made
 * active again. A key is reported once when it goes down; holding it does not repeat, and
 * while it is held the edges our own scan causes are ignored. A key still down `holdMs` after it
 * went down is reported once more as held (speech on: core/assist.ts); its release is the edge
 * that ends the wait.
 */
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Keypad, KeypadKey, Unsubscribe } from '../types.js';
import { DeviceBase, faulty, HEALTHY, Listeners } from '../device-base.js';
import type { GpioBackend, InputLine, InputSpec, OutputLine, OutputSpec } from './types.js';
import { sleep } from '../../time.js';

export interface MatrixKeypadOptions {
  readonly rows: readonly OutputSpec[];
  readonly columns: readonly InputSpec[];
  /** One string per row, one character per column, e.g. ["123", "456", "789", "*0#"]. */
  readonly keys: readonly string[];
  /** Characters that are not digits: what they mean (others are ignored). */
  readonly specialKeys: Readonly<Record<string, 'backspace' | 'clear' | 'enter'>>;
  readonly debounceMs: number;
  readonly settleMs: number;
  /** A key down this long is reported as held (null: never). */
  readonly holdMs?: number | null;
  readonly log: Logger;
}

export function keyOf(char: string, special: MatrixKeypadOptions['specialKeys']): KeypadKey | null {
  if (/^[0-9]$/.test(char)) return { kind: 'digit', digit: char };
  const kind = special[char];
  return kind ? { kind } : null;
}

export class GpioMatrixKeypad extends DeviceBase implements Keypad {
  private readonly keys = new Listeners<[KeypadKey]>();
  private readonly holds = new Listeners<[KeypadKey]>();
  private holdTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private scanning = false;
  /** Whether any key was down at the last scan. */
  private down = false;
  private held: string | null = null;
  private closed = false;

  private constructor(
    private readonly rows: readonly OutputLine[],
    private readonly columns: readonly InputLine[],
    private readonly opts: MatrixKeypadOptions,
  ) {
    super(`matrix keypad (${rows.length}x${columns.length})`);
    for (const c of columns) c.onEdge(() => this.edge());
  }

  static async open(backend: GpioBackend, opts: MatrixKeypadOptions): Promise<GpioMatrixKeypad> {
    const rows: OutputLine[] = [];
    const columns: InputLine[] = [];
    try {
      for (const r of opts.rows) rows.push(await backend.output(r));
      for (const c of opts.columns) columns.push(await backend.input(c));
      for (const r of rows) await r.write(true);
    } catch (e) {
      for (const l of [...rows, ...columns]) await l.close().catch(() => undefined);
      throw e;
    }
    return new GpioMatrixKeypad(rows, columns, opts);
  }

  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.keys.add(listener);
  }

  onHold(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.holds.add(listener);
  }

  private edge(): void {
    if (this.closed) return;
    if (this.scanning) {
      // Our own row changes make edges; a real change during a scan is caught by one more scan.
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.scan();
    }, this.opts.debounceMs);
  }

  private async activeColumns(): Promise<number[]> {
    const active: number[] = [];
    for (let c = 0; c < this.columns.length; c++) if (await this.columns[c]!.read()) active.push(c);
    return active;
  }

  /** Whether a key is down, and which: null for none or for more than one (ambiguous, ignored). */
  private async pressedKey(): Promise<{ down: boolean; key: string | null }> {
    if ((await this.activeColumns()).length === 0) return { down: false, key: null };
    for (const r of this.rows) await r.write(false);
    let found: string | null = null;
    let count = 0;
    try {
      for (let r = 0; r < this.rows.length; r++) {
        await this.rows[r]!.write(true);
        // eslint-disable-next-line no-restricted-syntax -- pacing hardware, not polling: a driven row's lines settle for settleMs before its columns are read
        await sleep(this.opts.settleMs);
        for (const c of await this.activeColumns()) {
          count++;
          found = this.opts.keys[r]?.[c] ?? null;
        }
        await this.rows[r]!.write(false);
      }
    } finally {
      for (const r of this.rows) await r.write(true);
    }
    return { down: true, key: count === 1 ? found : null };
  }

  private async scan(): Promise<void> {
    if (this.closed) return;
    this.scanning = true;
    try {
      const { down, key } = await this.pressedKey();
      this.down = down;
      this.setHealth(HEALTHY);
      if (key !== this.held) clearTimeout(this.holdTimer);
      if (key !== null && key !== this.held) {
        const k = keyOf(key, this.opts.specialKeys);
        if (k) {
          this.keys.emit(k);
          this.watchHold(key, k);
        } else this.opts.log.debug({ key }, 'keypad key without a meaning ignored');
      }
      this.held = key;
    } catch (e) {
      this.setHealth(faulty(`${this.name}: ${errorMessage(e)}`));
    } finally {
      // Let the edges of restoring the rows pass before listening again.
      await sleep(this.opts.settleMs);
      this.scanning = false;
    }
    // A key released or pressed while we scanned: look again once the lines are quiet.
    if (!this.closed && (await this.activeColumns().catch(() => [])).length > 0 !== this.down) this.edge();
  }

  /** Report `key` as held if it is still the key down when the hold time is up. */
  private watchHold(char: string, key: KeypadKey): void {
    const ms = this.opts.holdMs ?? null;
    if (ms === null) return;
    this.holdTimer = setTimeout(() => {
      if (!this.closed && this.held === char) this.holds.emit(key);
    }, ms);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.holdTimer);
    this.keys.clear();
    this.holds.clear();
    for (const l of [...this.rows, ...this.columns]) await l.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}
