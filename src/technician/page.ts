/**
 * The technician page: page/technician.html with its script and style as static files of their own
 * (page/technician.js, type-checked against the DOM and the server's status and stream types by
 * page/tsconfig.json and linted with src/; page/technician.css), read through the edge's one asset
 * loader when the port is made and served with a Content-Security-Policy that allows exactly this
 * origin's own script and style, and connections to this origin only.
 *
 * It is served without authentication: it holds no data, only the code that asks for a token and
 * then calls the API with it. Every API call needs the token.
 */
import { readAsset } from '../edge/assets.js';

export interface PageFile {
  readonly type: string;
  readonly body: string;
}

export interface Page {
  /** The page and its files by path: `/`, `/technician.js`, `/technician.css`. */
  readonly files: ReadonlyMap<string, PageFile>;
  readonly csp: string;
}

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function loadPage(): Page {
  const file = (name: string, type: string): PageFile => ({ type, body: readAsset(import.meta.url, name) });
  return {
    files: new Map([
      ['/', file('technician.html', 'text/html; charset=utf-8')],
      ['/technician.js', file('technician.js', 'text/javascript; charset=utf-8')],
      ['/technician.css', file('technician.css', 'text/css; charset=utf-8')],
    ]),
    csp: PAGE_CSP,
  };
}
