/**
 * The technician page: one self-contained HTML file (src/technician/page/technician.html, inline CSS
 * and JS, no external resources), read once and served with a Content-Security-Policy that allows
 * exactly its own inline script and style (by hash) and connections to this origin only.
 *
 * It is served without authentication: it holds no data, only the code that asks for a token and
 * then calls the API with it. Every API call needs the token.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Page {
  readonly html: string;
  readonly csp: string;
}

const RELATIVE = join('technician', 'page', 'technician.html');

/** Finds the page from src/technician (tests) and from dist/src/technician (built): up to the package root, then src/. */
function pagePath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'page', 'technician.html'), join(here, '..', '..', '..', 'src', RELATIVE)];
  const found = candidates.find((c) => existsSync(c));
  if (found !== undefined) return found;
  throw new Error(`technician page not found (looked in ${candidates.join(', ')})`);
}

function hashes(html: string, tag: 'script' | 'style'): string[] {
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  return [...html.matchAll(re)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '', 'utf8')
        .digest('base64')}'`,
  );
}

export function loadPage(): Page {
  const html = readFileSync(pagePath(), 'utf8');
  const csp = [
    "default-src 'none'",
    `script-src ${hashes(html, 'script').join(' ')}`,
    `style-src ${hashes(html, 'style').join(' ')}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}
