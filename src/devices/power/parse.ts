/** Parsers of the texts the power sources read. Pure; unit-tested with fixture text. */

/** A sysfs number (e.g. hwmon "12034\n" mV) times its scale, or null when it is not a number. */
export function parseScaledNumber(text: string, scale: number): number | null {
  const t = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Math.round(Number(t) * scale * 1000) / 1000;
}

/** /sys/class/net/<if>/operstate: "up" -> 100, anything else (down, dormant, unknown) -> 0. */
export function parseOperstate(text: string): number {
  return text.trim() === 'up' ? 100 : 0;
}

/**
 * /proc/net/wireless:
 *   Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
 *    face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
 *    wlan0: 0000   54.  -56.  -256        0      0      0      0     16        0
 * The link quality of `iface` as percent of `maxQuality` (70 for most drivers); null if absent.
 */
export function parseWirelessQuality(text: string, iface: string, maxQuality: number): number | null {
  for (const line of text.split('\n')) {
    const m = /^\s*([^:\s]+):\s+\S+\s+(-?\d+(?:\.\d*)?)/.exec(line);
    if (m && m[1] === iface) return clampPercent((Number(m[2]) / maxQuality) * 100);
  }
  return null;
}

/**
 * A modem command's output: a bare percent ("73"), or an AT answer "+CSQ: <rssi>,<ber>" whose
 * rssi 0..31 maps to 0..100 and 99 means unknown (null).
 */
export function parseSignalOutput(text: string): number | null {
  const csq = /\+CSQ:\s*(\d+)\s*,\s*\d+/.exec(text);
  if (csq) {
    const rssi = Number(csq[1]);
    return rssi === 99 || rssi > 31 ? null : clampPercent((rssi / 31) * 100);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/m.exec(text);
  return m ? clampPercent(Number(m[1])) : null;
}

function clampPercent(n: number): number {
  return Math.max(0, Math.min(100, Math.round(n)));
}
