/**
 * The station's own texts in both locales: complete sets, key-by-key overrides, and every text
 * rendered on a 20×4 ASCII display (transliterated, word-wrapped by the display's own fitting code)
 * without cutting or losing a word.
 */
import { describe, expect, it } from 'vitest';
import { LOCALES, TEXTS, type Texts } from '../../src/config/messages.js';
import { messagesSchema } from '../../src/config/schema.js';
import { fitLines, toCharset } from '../../src/devices/display/text.js';

const SIZE = { columns: 20, rows: 4 };
/** The longest values a placeholder takes at the defaults (6-digit PIN, 3-digit boxes, 15 min, 255 parts). */
const WORST: Readonly<Record<string, readonly string[]>> = {
  mask: ['******'],
  box: ['999', '98, 99'],
  time: ['15:00', '0:05'],
  missing: ['254'],
  total: ['255'],
};

/** Every way a text is shown: each placeholder filled with each of its worst-case values. */
function variants(lines: readonly string[]): string[][] {
  let out: string[][] = [[...lines]];
  for (const [key, values] of Object.entries(WORST)) {
    if (!lines.some((l) => l.includes(`{${key}}`))) continue;
    out = out.flatMap((v) => values.map((value) => v.map((l) => l.split(`{${key}}`).join(value))));
  }
  return out;
}

function screens(t: Texts): [string, string[]][] {
  return (Object.keys(t) as (keyof Texts)[]).flatMap((key) => {
    const v = t[key];
    // pinEntry is the second line under the prompt's first; serviceOpen is a screen of its own.
    const lines = key === 'pinEntry' ? [t.prompt[0] ?? '', v as string] : typeof v === 'string' ? [v] : [...v];
    return variants(lines).map((l): [string, string[]] => [key, l]);
  });
}

describe('station texts', () => {
  it('both locales are complete sets of the same keys', () => {
    expect(Object.keys(TEXTS.cs).sort()).toEqual(Object.keys(TEXTS.en).sort());
    for (const locale of LOCALES) for (const v of Object.values(TEXTS[locale])) expect(v.length).toBeGreaterThan(0);
  });

  for (const locale of LOCALES) {
    it(`every ${locale} text fits 20×4 in ASCII without cutting a word`, () => {
      for (const [key, lines] of screens(TEXTS[locale])) {
        const ascii = lines.map((l) => toCharset(l, 'ascii'));
        const shown = fitLines(ascii, SIZE, 'wrap');
        const what = `${locale}.${key}: ${JSON.stringify(shown)}`;
        expect(ascii.join(' '), what).not.toContain('?'); // every letter transliterates
        expect(shown.length, what).toBeLessThanOrEqual(SIZE.rows);
        for (const row of shown) expect(row.length, what).toBeLessThanOrEqual(SIZE.columns);
        // Word by word, nothing cut, nothing lost.
        const words = (rows: readonly string[]) =>
          rows
            .join(' ')
            .split(/ +/)
            .filter((w) => w !== '');
        expect(words(shown), what).toEqual(words(ascii));
      }
    });
  }

  for (const locale of LOCALES) {
    it(`every ${locale} warning screen ("more time" above what it concerns) fits 20×4 in ASCII`, () => {
      const t = TEXTS[locale];
      for (const lines of [...variants([...t.moreTime, t.pinEntry]), ...variants([...t.moreTime, ...t.doorAjar])]) {
        const ascii = lines.map((l) => toCharset(l, 'ascii'));
        const shown = fitLines(ascii, SIZE, 'wrap');
        expect(shown.length, JSON.stringify(shown)).toBeLessThanOrEqual(SIZE.rows);
        expect(shown.join(' ').split(/ +/), JSON.stringify(shown)).toEqual(ascii.join(' ').split(/ +/));
      }
    });
  }

  it('Czech is transliterated, not mangled', () => {
    expect(toCharset(TEXTS.cs.pinLockout.join(' / '), 'ascii')).toBe('Prilis mnoho / chybnych PINu, / zkuste to za {time}');
  });

  it('messages.locale picks the set; any key overrides that text alone', () => {
    const m = messagesSchema.parse({ locale: 'cs', prompt: ['Vítejte'] });
    expect(m.locale).toBe('cs');
    expect(m.prompt).toEqual(['Vítejte']);
    expect(m.busy).toEqual(TEXTS.cs.busy);
    expect(messagesSchema.parse({}).prompt).toEqual(TEXTS.en.prompt);
    expect(messagesSchema.safeParse({ locale: 'de' }).success).toBe(false);
  });
});
