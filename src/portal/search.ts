/**
 * GET /api/search (one entry point, `kind` selects documents, authorities, exemplars or users)
 * and GET /api/newest-documents.
 */
import { parseResponse, type PortalRequest, type SendFn } from './http.js';
import {
  itemSchemaByKind,
  newestDocumentsSchema,
  searchEnvelopeSchema,
  type NewestDocument,
  type SearchItemByKind,
  type SearchKind,
  type SearchPage,
} from './schemas.js';

export interface SearchParams<K extends SearchKind = SearchKind> {
  readonly kind: K;
  /** Generic global query. */
  readonly q?: string;
  /** Item name: document field 245, authority field 100, person name for persons. */
  readonly name?: string;
  /** Fond id filter (documents and authorities). */
  readonly fond?: number;
  /** Page size; the portal's default and maximum are not specified. */
  readonly pageSize?: number;
  /** 1-based page number. */
  readonly pageNumber?: number;
}

function positiveInt(name: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new RangeError(`${name} must be a positive integer, got ${v}`);
}

export async function search<K extends SearchKind>(send: SendFn, params: SearchParams<K>): Promise<SearchPage<SearchItemByKind[K]>> {
  positiveInt('pageSize', params.pageSize);
  positiveInt('pageNumber', params.pageNumber);
  if (params.fond !== undefined && !Number.isInteger(params.fond)) throw new RangeError(`fond must be an integer, got ${params.fond}`);
  const req: PortalRequest = {
    method: 'GET',
    path: '/api/search',
    query: { kind: params.kind, q: params.q, name: params.name, fond: params.fond, pageSize: params.pageSize, pageNumber: params.pageNumber },
  };
  const schema = searchEnvelopeSchema(itemSchemaByKind[params.kind]);
  // The schema is chosen by kind at run time; the cast restates that pairing for the compiler.
  return parseResponse(schema, req, await send(req)) as SearchPage<SearchItemByKind[K]>;
}

export interface PageIterationOptions {
  /** Stop after this many pages (default: no limit). */
  readonly maxPages?: number;
}

/**
 * All pages of a search, starting at `params.pageNumber` (default 1), in order. Ends after the
 * page numbered `totalPages`, or at the first empty page, so a portal that miscounts
 * totalPages cannot make the loop run forever.
 */
export async function* searchPages<K extends SearchKind>(
  send: SendFn,
  params: SearchParams<K>,
  options: PageIterationOptions = {},
): AsyncGenerator<SearchPage<SearchItemByKind[K]>, void, undefined> {
  let pageNumber = params.pageNumber ?? 1;
  for (let n = 0; options.maxPages === undefined || n < options.maxPages; n++) {
    const page = await search(send, { ...params, pageNumber });
    yield page;
    // Count pages ourselves rather than trusting the echoed pageNumber: a portal that ignored
    // the parameter and echoed 1 every time would otherwise be asked for page 2 forever.
    if (page.result.content.length === 0 || pageNumber >= page.result.totalPages) return;
    pageNumber += 1;
  }
}

/** Every item of a search, page after page (see searchPages). */
export async function* searchItems<K extends SearchKind>(
  send: SendFn,
  params: SearchParams<K>,
  options: PageIterationOptions = {},
): AsyncGenerator<SearchItemByKind[K], void, undefined> {
  for await (const page of searchPages(send, params, options)) yield* page.result.content;
}

/** GET /api/newest-documents: the list on the portal's home page. */
export async function newestDocuments(send: SendFn): Promise<NewestDocument[]> {
  const req: PortalRequest = { method: 'GET', path: '/api/newest-documents' };
  return parseResponse(newestDocumentsSchema, req, await send(req));
}
