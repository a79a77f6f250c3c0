/**
 * The command lines of Debian's libgpiod tools (package `gpiod`), for both generations:
 *   v1 (libgpiod 1.6, Debian bookworm / Raspberry Pi OS Bookworm): `gpioset [opts] CHIP OFF=V`,
 *       --mode=exit|signal|time, gpiomon -F with %e = 1 rising / 0 falling;
 *   v2 (libgpiod 2.x, Debian trixie / Raspberry Pi OS Trixie): `gpioset [opts] -c CHIP OFF=V`,
 *       holds until killed, -t PERIODS toggles (a last period of 0 exits), gpiomon -F %E.
 * Pure functions: what is run is unit-tested here; that it does the right thing to a line is
 * tested in the VM rig against gpio-sim.
 */
import type { Bias } from './types.js';

export type GpiodVersion = 1 | 2;

export interface ToolLine {
  /** The chip as the tools accept it: /dev/gpiochipN. */
  readonly chipPath: string;
  readonly offset: number;
  readonly activeLow: boolean;
}

/** `gpioset --version` -> 1 or 2; null if it is not libgpiod's. */
export function parseGpiodVersion(text: string): GpiodVersion | null {
  const m = /\(libgpiod\)\s+v?(\d+)\./.exec(text);
  if (!m) return null;
  return m[1] === '1' ? 1 : m[1] === '2' ? 2 : null;
}

export interface DetectedChip {
  readonly name: string;
  readonly label: string;
  readonly lines: number;
}

/** `gpiodetect` output (same in v1 and v2): "gpiochip0 [pinctrl-bcm2711] (58 lines)". */
export function parseGpiodetect(text: string): DetectedChip[] {
  const chips: DetectedChip[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+\[(.*)\]\s+\((\d+) lines?\)\s*$/.exec(line.trim());
    if (m) chips.push({ name: m[1]!, label: m[2]!, lines: Number(m[3]) });
  }
  return chips;
}

/** gpioget output: v1 prints "1"; v2 prints `"17"=active` (or =inactive). Logical level. */
export function parseGpiogetValue(text: string): boolean | null {
  const t = text.trim();
  if (/^[01]$/.test(t)) return t === '1';
  const m = /=(active|inactive|on|off|1|0)$/.exec(t);
  if (!m) return null;
  return m[1] === 'active' || m[1] === 'on' || m[1] === '1';
}

/** One gpiomon event line as formatted by monArgs(): the logical level after the edge. */
export function parseGpiomonEvent(version: GpiodVersion, text: string): boolean | null {
  const t = text.trim();
  if (version === 1) return t === '1' ? true : t === '0' ? false : null;
  return t === 'rising' ? true : t === 'falling' ? false : null;
}

function biasArgs(version: GpiodVersion, bias: Bias): string[] {
  if (bias === 'as-is') return [];
  const value = bias === 'disable' ? (version === 1 ? 'disable' : 'disabled') : bias;
  return version === 1 ? ['-B', value] : ['-b', value];
}

const target = (version: GpiodVersion, l: ToolLine, value?: 0 | 1): string[] => {
  const line = value === undefined ? `${l.offset}` : `${l.offset}=${value}`;
  return version === 1 ? [l.chipPath, line] : ['-c', l.chipPath, line];
};
const low = (l: ToolLine): string[] => (l.activeLow ? ['-l'] : []);

/** Set a logical value and exit once it is applied. */
export function setOnceArgs(version: GpiodVersion, l: ToolLine, value: 0 | 1): string[] {
  return version === 1 ? ['gpioset', ...low(l), ...target(1, l, value)] : ['gpioset', '-t', '0', ...low(l), ...target(2, l, value)];
}

/** Request the line at a logical value and keep it requested until SIGTERM. */
export function holdArgs(version: GpiodVersion, l: ToolLine, value: 0 | 1): string[] {
  return version === 1 ? ['gpioset', '--mode=signal', ...low(l), ...target(1, l, value)] : ['gpioset', ...low(l), ...target(2, l, value)];
}

/**
 * Active for ms, timed by gpioset itself. v2 toggles back to inactive before it exits; v1 can
 * only hold and exit (so the caller follows it with setOnceArgs(0)).
 */
export function pulseArgs(version: GpiodVersion, l: ToolLine, ms: number): string[] {
  if (version === 2) return ['gpioset', '-t', `${ms}ms,0`, ...low(l), ...target(2, l, 1)];
  const sec = Math.floor(ms / 1000);
  const usec = (ms % 1000) * 1000;
  return ['gpioset', '--mode=time', `--sec=${sec}`, `--usec=${usec}`, ...low(l), ...target(1, l, 1)];
}

export function getArgs(version: GpiodVersion, l: ToolLine, bias: Bias): string[] {
  return ['gpioget', ...low(l), ...biasArgs(version, bias), ...target(version, l)];
}

/** Watch both edges, one line per event, flushed per event (v1 needs -b for a pipe). */
export function monArgs(version: GpiodVersion, l: ToolLine, bias: Bias): string[] {
  return version === 1
    ? ['gpiomon', '-b', '-F', '%e', ...low(l), ...biasArgs(1, bias), ...target(1, l)]
    : ['gpiomon', '-F', '%E', ...low(l), ...biasArgs(2, bias), ...target(2, l)];
}

/**
 * A shell condition for lineScript's backgroundUp: true once the background tool (the script's
 * "$p") holds a line request's file descriptor, `anon_inode:gpio-line` (uAPI v2, libgpiod 2.x) or
 * `anon_inode:gpio-event` (uAPI v1 event request, libgpiod 1.x). The kernel installs that
 * descriptor as the last step of the request, after the line's edge interrupt is armed
 * (gpiolib-cdev.c, linereq_create and lineevent_create: gpiod_request_user, edge_detector_setup
 * or request_threaded_irq, then fd_install), so from then on no edge is missed.
 *
 * Not gpioinfo's consumer (what was checked before): the kernel sets the consumer first, so a line
 * can list "gpiomon" while its interrupt is not armed yet, and an edge in that gap is lost for
 * good. The rig lost a cancel-button press that way (test/hw/gpio-input-ready-loop.test.ts).
 */
export const REQUEST_FD_HELD = `ls -l /proc/"$p"/fd 2>/dev/null | grep -Eq 'anon_inode:\\[?gpio-(line|event)\\]?$'`;

/** POSIX single-quoting, so argv survives `sh -c`. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_./=,%:-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The shell script that runs one line's tools. It runs the optional steps in order (each must
 * succeed), prints `marker` once the line is at its level, then runs `background` until a newline
 * or EOF arrives on stdin. EOF is what a dead parent gives: so when the station process dies, even
 * by SIGKILL, the helper releases its line instead of holding it forever; and a pulse already
 * started still ends by its own timer, because the steps do not read stdin.
 */
export function lineScript(steps: readonly (readonly string[])[], marker: string, background: readonly string[], backgroundUp?: string): string {
  // With backgroundUp (a condition that may use the background tool's pid, "$p"), the marker waits
  // (up to ~10 s) until that condition says the background tool holds its line.
  const wait = backgroundUp
    ? [`n=0; until ${backgroundUp}; do kill -0 "$p" 2>/dev/null || exit 20; n=$((n+1)); [ "$n" -gt 500 ] && exit 21; sleep 0.02; done`]
    : [];
  const marked = backgroundUp ? [] : [`echo ${marker}`];
  return [
    'exec 3<&0 </dev/null',
    ...steps.map((s, i) => `${shellQuote(s)} || exit ${10 + i}`),
    ...marked,
    `${shellQuote(background)} &`,
    'p=$!',
    ...wait,
    ...(backgroundUp ? [`echo ${marker}`] : []),
    '( read -r _ <&3; kill "$p" 2>/dev/null ) &',
    'w=$!',
    'wait "$p"; s=$?',
    'kill "$w" 2>/dev/null',
    'exit "$s"',
  ].join('\n');
}
