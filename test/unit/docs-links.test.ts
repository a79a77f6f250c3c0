/**
 * Every relative link in the project's Markdown resolves: the file exists, and a `#fragment` into a
 * Markdown file names one of its headings (GitHub's slugs). The documents were split by reader and
 * moved around; a link left pointing at a section that moved is caught here, not by a reader.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT as ROOT, projectFiles } from '../support/project-files.js';

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')) {
    const m = /^#+\s+(.*)$/.exec(line);
    if (m !== null)
      out.add(
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}_\- ]/gu, '')
          .replaceAll(' ', '-'),
      );
  }
  return out;
}

function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
    const [path = '', fragment] = link.split('#', 2);
    const target = path === '' ? file : join(dirname(file), path);
    if (!existsSync(target)) broken.push(`${relative(ROOT, file)}: ${link} (no such file)`);
    else if (fragment !== undefined && target.endsWith('.md') && !anchors(target).has(fragment.toLowerCase()))
      broken.push(`${relative(ROOT, file)}: ${link} (no such heading)`);
  }
  return broken;
}

describe('relative links in the Markdown documents', () => {
  const files = projectFiles((name) => name.endsWith('.md'));

  it('finds the documents', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/config.md', 'docs/operating.md']));
  });

  it('every relative link names a file that exists, and a heading that exists', () => {
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('would see a link that goes nowhere', () => {
    expect(anchors(join(ROOT, 'docs/operating.md')).has('upgrade-and-roll-back')).toBe(true);
    expect(anchors(join(ROOT, 'docs/operating.md')).has('deploying')).toBe(false);
  });
});
