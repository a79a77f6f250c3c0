/**
 * The patron's help controls on GPIO (the profile's `speech` section): a speech button, volume
 * buttons and a more-time button (each a debounced push button, active while pressed), and the
 * headphone jack's detect switch (a level, active = plugged in; a jack whose switch contact opens
 * when a plug goes in is wired active-low: hardware/WIRING.md). Each line is optional.
 */
import { DeviceError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { DeviceBase, faulty, HEALTHY, Listeners } from '../device-base.js';
import type { AssistControls, AssistRequest, Unsubscribe } from '../types.js';
import { Debouncer } from './debounce.js';
import { GpioButton } from './inputs.js';
import { describeSpec, type GpioBackend, type InputLine, type InputSpec } from './types.js';

export interface AssistLines {
  readonly button: InputSpec | null;
  readonly volumeUp: InputSpec | null;
  readonly volumeDown: InputSpec | null;
  readonly moreTime: InputSpec | null;
  readonly headphones: InputSpec | null;
}

export interface AssistOptions {
  readonly lines: AssistLines;
  readonly debounceMs: number;
  readonly log: Logger;
}

const BUTTONS: readonly (readonly [keyof AssistLines, AssistRequest, string])[] = [
  ['button', 'speech', 'speech button'],
  ['volumeUp', 'volume-up', 'volume up button'],
  ['volumeDown', 'volume-down', 'volume down button'],
  ['moreTime', 'more-time', 'more-time button'],
];

export class GpioAssistControls extends DeviceBase implements AssistControls {
  private readonly requests = new Listeners<[AssistRequest]>();
  private readonly jack = new Listeners<[boolean]>();
  private readonly offs: Unsubscribe[] = [];
  private closed = false;

  private constructor(
    private readonly buttons: readonly GpioButton[],
    private readonly headphoneLine: { readonly line: InputLine; readonly debouncer: Debouncer } | null,
    name: string,
    bind: (self: GpioAssistControls) => void,
  ) {
    super(name);
    bind(this);
  }

  static async open(backend: GpioBackend, opts: AssistOptions): Promise<GpioAssistControls> {
    const opened: { close(): Promise<void> }[] = [];
    const buttons: [GpioButton, AssistRequest][] = [];
    try {
      for (const [key, request, name] of BUTTONS) {
        const spec = opts.lines[key];
        if (spec === null) continue;
        const b = await GpioButton.open(backend, { name, line: spec, debounceMs: opts.debounceMs, log: opts.log });
        opened.push(b);
        buttons.push([b, request]);
      }
      let jack: { line: InputLine; debouncer: Debouncer } | null = null;
      let self: GpioAssistControls | null = null;
      if (opts.lines.headphones !== null) {
        const line = await backend.input(opts.lines.headphones);
        opened.push(line);
        let initial: boolean;
        try {
          initial = await line.read();
        } catch (e) {
          throw new DeviceError('headphone jack', `cannot read: ${errorMessage(e)}`, { cause: e });
        }
        const debouncer = new Debouncer(line, {
          ms: opts.debounceMs,
          initial,
          onChange: (plugged) => self?.jack.emit(plugged),
          onError: (message) => self?.setHealth(faulty(`headphone jack (${describeSpec(opts.lines.headphones!)}): ${message}`)),
        });
        jack = { line, debouncer };
      }
      const lines = [...buttons.map(([b]) => b.name), ...(opts.lines.headphones ? [`headphone jack (${describeSpec(opts.lines.headphones)})`] : [])];
      self = new GpioAssistControls(
        buttons.map(([b]) => b),
        jack,
        `help controls (${lines.join(', ')})`,
        (c) => {
          for (const [b, request] of buttons) {
            c.offs.push(b.onPress(() => c.requests.emit(request)));
            c.offs.push(b.onHealthChange((h) => c.setHealth(h.ok ? HEALTHY : h)));
          }
        },
      );
      return self;
    } catch (e) {
      for (const d of opened) await d.close().catch(() => undefined);
      throw e;
    }
  }

  onRequest(listener: (request: AssistRequest) => void): Unsubscribe {
    return this.requests.add(listener);
  }

  headphones(): boolean | null {
    return this.headphoneLine === null ? null : this.headphoneLine.debouncer.value;
  }

  onHeadphones(listener: (plugged: boolean) => void): Unsubscribe {
    return this.jack.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.offs) off();
    this.requests.clear();
    this.jack.clear();
    this.headphoneLine?.debouncer.stop();
    await Promise.all(this.buttons.map((b) => b.close()));
    await this.headphoneLine?.line.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}
