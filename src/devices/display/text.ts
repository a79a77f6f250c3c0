/**
 * Pure text handling of character displays: charset conversion (diacritics transliterated for
 * displays without them) and fitting lines to columns × rows.
 */

/**
 * - `ascii`: 7-bit displays (most HD44780 ROMs, VFDs): diacritics removed (`Vložte` → `Vlozte`),
 *   a few letters and typographic marks spelled out, anything else becomes `?`.
 * - `latin1`: displays with an ISO-8859-1 font: Latin-1 characters pass (á é í ó ú ý), others
 *   are transliterated as for ascii (č ř ě ů → c r e u).
 * - `utf8`: passes everything (terminal, UTF-8 capable displays).
 */
export type Charset = 'ascii' | 'latin1' | 'utf8';

/** Letters and marks NFD cannot split into base + combining mark. */
const SPELLED: Readonly<Record<string, string>> = {
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  ł: 'l',
  Ł: 'L',
  ı: 'i',
  ø: 'o',
  Ø: 'O',
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  þ: 'th',
  Þ: 'Th',
  ŧ: 't',
  Ŧ: 'T',
  ħ: 'h',
  Ħ: 'H',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '‟': '"',
  '«': '"',
  '»': '"',
  '‹': "'",
  '›': "'",
  '–': '-',
  '—': '-',
  '−': '-',
  '‐': '-',
  '…': '...',
  '€': 'EUR',
  '•': '*',
  '×': 'x',
  '÷': '/',
  '°': 'o',
  '\u00a0': ' ',
  '\u202f': ' ',
  '\u2009': ' ',
};

/** One character (code point) as ASCII. */
function asciiOf(ch: string): string {
  const c = ch.codePointAt(0) ?? 0;
  if (c < 0x80) return ch;
  const spelled = SPELLED[ch];
  if (spelled !== undefined) return spelled;
  const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
  if (base.length > 0 && [...base].every((b) => (b.codePointAt(0) ?? 0) < 0x80)) return base;
  return '?';
}

/** Convert text to what a display with `charset` can show. Control characters become spaces. */
export function toCharset(text: string, charset: Charset): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.normalize('NFC').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  if (charset === 'utf8') return clean;
  let out = '';
  for (const ch of clean) {
    const c = ch.codePointAt(0) ?? 0;
    out += charset === 'latin1' && c <= 0xff ? ch : asciiOf(ch);
  }
  return out;
}

/**
 * - `wrap`: long lines are word-wrapped (words longer than a row are split). If wrapping needs
 *   more rows than the display has but the given lines alone would fit, each line is cut instead,
 *   so that no given line disappears entirely.
 * - `cut`: every line is cut at the last column.
 */
export type Overflow = 'wrap' | 'cut';

export interface DisplaySize {
  readonly columns: number;
  readonly rows: number;
}

/** Fit lines (already in the display's charset) into the display: at most `rows` rows of at most `columns` characters. */
export function fitLines(lines: readonly string[], size: DisplaySize, overflow: Overflow): string[] {
  const cut = lines.map((l) => cutTo(l.trimEnd(), size.columns));
  if (overflow === 'cut') return cut.slice(0, size.rows);
  const wrapped = lines.flatMap((l) => wrapLine(l, size.columns));
  if (wrapped.length > size.rows && lines.length <= size.rows) return cut;
  return wrapped.slice(0, size.rows);
}

function cutTo(s: string, n: number): string {
  const cps = [...s];
  return cps.length <= n ? s : cps.slice(0, n).join('');
}

/** Greedy word wrap by code points; an empty line stays one (blank) row. */
export function wrapLine(line: string, columns: number): string[] {
  const words = line
    .trim()
    .split(/ +/)
    .filter((w) => w.length > 0);
  if (words.length === 0) return [''];
  const rows: string[] = [];
  let cur = '';
  for (const word of words) {
    let w = [...word];
    if (cur !== '' && [...cur].length + 1 + w.length <= columns) {
      cur += ` ${word}`;
      continue;
    }
    if (cur !== '') rows.push(cur);
    cur = '';
    while (w.length > columns) {
      rows.push(w.slice(0, columns).join(''));
      w = w.slice(columns);
    }
    cur = w.join('');
  }
  if (cur !== '') rows.push(cur);
  return rows;
}
