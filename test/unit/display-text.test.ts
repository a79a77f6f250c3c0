/** Pure display text: transliteration per charset and fitting to columns × rows. */
import { describe, expect, it } from 'vitest';
import { fitLines, toCharset, wrapLine } from '../../src/devices/display/text.js';

describe('toCharset', () => {
  it('ascii: the issue example and every Czech letter, both cases', () => {
    expect(toCharset('Vložte knihu', 'ascii')).toBe('Vlozte knihu');
    expect(toCharset('áčďéěíňóřšťúůýž', 'ascii')).toBe('acdeeinorstuuyz');
    expect(toCharset('ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ', 'ascii')).toBe('ACDEEINORSTUUYZ');
    expect(toCharset('Příliš žluťoučký kůň úpěl ďábelské ódy', 'ascii')).toBe('Prilis zlutoucky kun upel dabelske ody');
  });
  it('ascii: decomposed input (NFD) too, and letters NFD cannot split', () => {
    expect(toCharset('Vloz\u030Cte', 'ascii')).toBe('Vlozte');
    expect(toCharset('Łódź Straße Ærø đ', 'ascii')).toBe('Lodz Strasse AEro d');
  });
  it('ascii: typographic marks spelled, unknown characters as ?', () => {
    expect(toCharset('„Box“ – 5 € … 20 °C', 'ascii')).toBe('"Box" - 5 EUR ... 20 oC');
    expect(toCharset('日本 ✓', 'ascii')).toBe('?? ?');
  });
  it('latin1 keeps Latin-1 letters and transliterates the rest', () => {
    expect(toCharset('Vložte knihu, vyzvedněte: á é í ó ú ý', 'latin1')).toBe('Vlozte knihu, vyzvednete: á é í ó ú ý');
  });
  it('utf8 passes through (NFC)', () => {
    expect(toCharset('Vlo\u017Ete ů', 'utf8')).toBe('Vložte ů');
    expect(toCharset('Vloz\u030Cte', 'utf8')).toBe('Vložte');
  });
  it('control characters become spaces in every charset (no clear/cursor bytes from texts)', () => {
    expect(toCharset('A\fB\rC\u001bD\u0085', 'ascii')).toBe('A B C D ');
    expect(toCharset('A\fB', 'utf8')).toBe('A B');
  });
});

describe('wrapLine', () => {
  it('greedy word wrap', () => {
    expect(wrapLine('Scan an item or enter your PIN', 10)).toEqual(['Scan an', 'item or', 'enter your', 'PIN']);
  });
  it('splits words longer than a row', () => {
    expect(wrapLine('ABCDEFGHIJKLMNOPQRSTUVWXY end', 10)).toEqual(['ABCDEFGHIJ', 'KLMNOPQRST', 'UVWXY end']);
  });
  it('a blank line stays a blank row; runs of spaces collapse', () => {
    expect(wrapLine('', 10)).toEqual(['']);
    expect(wrapLine('a    b', 10)).toEqual(['a b']);
  });
  it('counts characters, not UTF-16 units or bytes', () => {
    expect(wrapLine('žžžžž žžžž', 5)).toEqual(['žžžžž', 'žžžž']);
  });
});

describe('fitLines', () => {
  const size = { columns: 20, rows: 4 };
  it('short lines pass as they are', () => {
    expect(fitLines(['Scan an item', 'or enter your PIN'], size, 'wrap')).toEqual(['Scan an item', 'or enter your PIN']);
  });
  it('wrap: a long line takes several rows', () => {
    expect(fitLines(['Please close the box number 12 first'], size, 'wrap')).toEqual(['Please close the box', 'number 12 first']);
  });
  it('wrap: falls back to cutting when wrapping would push given lines off the display', () => {
    const lines = ['Something went wrong badly', 'please try again', 'or ask staff', 'Thank you'];
    expect(fitLines(lines, size, 'wrap')).toEqual(['Something went wrong', 'please try again', 'or ask staff', 'Thank you']);
  });
  it('more lines than rows: the first rows are shown', () => {
    expect(fitLines(['1', '2', '3', '4', '5'], size, 'wrap')).toEqual(['1', '2', '3', '4']);
    expect(fitLines(['1', '2', '3', '4', '5'], size, 'cut')).toEqual(['1', '2', '3', '4']);
  });
  it('cut: every line cut at the last column, trailing spaces dropped', () => {
    expect(fitLines(['Please close the box number 12 first', 'ok   '], size, 'cut')).toEqual(['Please close the box', 'ok']);
  });
  it('a 16×2 display', () => {
    expect(fitLines(['Vlozte knihu do boxu 3'], { columns: 16, rows: 2 }, 'wrap')).toEqual(['Vlozte knihu do', 'boxu 3']);
  });
});
