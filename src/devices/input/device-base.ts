/** Log helpers of the real input/output drivers. */

/** Render a possibly hostile string for a log line: escaped, truncated, never the whole of a long value. */
export function logSafe(s: string, max = 16): string {
  const head = [...s].slice(0, max).join('');
  // eslint-disable-next-line no-control-regex
  const escaped = head.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return s.length > max ? `${escaped}…(${s.length} chars)` : escaped;
}
