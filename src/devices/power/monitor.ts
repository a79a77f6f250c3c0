/**
 * PowerMonitor from config (hardware.power): input voltage from a fixed value or a sysfs file,
 * signal strength from the wired link state, /proc/net/wireless or a modem command. Each returns
 * null when it cannot tell (a missing file, a command that fails): /state then omits the value,
 * it never blocks the heartbeat.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { PowerConfig } from '../board-config.js';
import type { PowerMonitor } from '../types.js';
import { parseOperstate, parseScaledNumber, parseSignalOutput, parseWirelessQuality } from './parse.js';

export interface PowerMonitorDeps {
  readonly readText?: (path: string) => Promise<string>;
  readonly run?: (argv: readonly string[], timeoutMs: number) => Promise<string>;
}

const defaultRun = (argv: readonly string[], timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout) => (err ? reject(new Error(err.message)) : resolve(stdout)));
  });

export class ConfiguredPowerMonitor implements PowerMonitor {
  private readonly readText: (path: string) => Promise<string>;
  private readonly run: (argv: readonly string[], timeoutMs: number) => Promise<string>;

  constructor(
    private readonly config: PowerConfig,
    deps: PowerMonitorDeps = {},
  ) {
    this.readText = deps.readText ?? ((p) => readFile(p, 'utf8'));
    this.run = deps.run ?? defaultRun;
  }

  async inputVoltage(): Promise<number | null> {
    const v = this.config.voltage;
    switch (v.kind) {
      case 'fixed':
        return v.volts;
      case 'file':
        return this.readText(v.path).then(
          (t) => parseScaledNumber(t, v.scale),
          () => null,
        );
    }
  }

  async internetSignalStrength(): Promise<number | null> {
    const s = this.config.signal;
    switch (s.kind) {
      case 'wired':
        return this.readText(`/sys/class/net/${s.interface}/operstate`).then(parseOperstate, () => null);
      case 'wifi':
        return this.readText('/proc/net/wireless').then(
          // Not listed = not associated: no signal.
          (t) => parseWirelessQuality(t, s.interface, s.maxQuality) ?? 0,
          () => null,
        );
      case 'command':
        return this.run(s.command, s.timeoutMs).then(parseSignalOutput, () => null);
    }
  }
}
