/**
 * PortalClient: one object for every endpoint of library-portal-api.md. It owns the HTTP layer
 * (got, retry off) and the token cache; the endpoint modules are plain functions over a SendFn.
 */
import { authorizedSend, TokenManager, type AccessToken, type PortalGrant } from './auth.js';
import { createEditation, createField, createSubfield, publishEditation, setEditationValue } from './editation.js';
import type { CreateEditationParams, EditationCreateMethod, EditationValue } from './editation.js';
import { createSend, parseResponse, type PortalLogger, type PortalRequest, type SendFn } from './http.js';
import { createHolding, quickSetField, setPhase, type Phase, type QuickSetPathForm, type QuickSetTarget, type QuickSetValue } from './records.js';
import { newestDocuments, search, searchItems, searchPages, type PageIterationOptions, type SearchParams } from './search.js';
import { currentUserSchema } from './schemas.js';
import type { CurrentUser, NewestDocument, RecordEditation, SearchItemByKind, SearchKind, SearchPage, UserFetchResponse, UserSyncResponse } from './schemas.js';
import { fetchUser, syncUser } from './sync.js';

export interface PortalClientOptions {
  /** The portal's {base_url}. */
  readonly baseUrl: string;
  readonly clientId: string;
  /** Secret: sent only as HTTP Basic to /oauth/token. */
  readonly clientSecret: string;
  readonly grant: PortalGrant;
  /** Per-request timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** Largest answer read (default 4 MiB); longer ones are abandoned. */
  readonly maxAnswerBytes?: number;
  /** Logs method, path, status and duration at debug level; nothing else. */
  readonly logger?: PortalLogger;
  /** Monotonic clock in ms (default performance.now), for token expiry and durations. */
  readonly now?: () => number;
  /** See TokenOptions.renewMarginMs (default 60 s). */
  readonly renewMarginMs?: number;
  /** Path form of the quick set (default 'template', the documented one). */
  readonly quickSetPath?: QuickSetPathForm;
  /** Method of /api/record-editations/new (default 'POST', as in the spec's example). */
  readonly editationCreateMethod?: EditationCreateMethod;
}

export class PortalClient {
  private readonly tokens: TokenManager;
  private readonly send: SendFn;
  private readonly quickSetForm: QuickSetPathForm;
  private readonly editationMethod: EditationCreateMethod;

  constructor(options: PortalClientOptions) {
    const raw = createSend(options);
    this.tokens = new TokenManager(raw, options);
    this.send = authorizedSend(raw, this.tokens);
    this.quickSetForm = options.quickSetPath ?? 'template';
    this.editationMethod = options.editationCreateMethod ?? 'POST';
  }

  /** The current access token (cached; renewed before expiry). Its accessToken is a secret. */
  token(): Promise<AccessToken> {
    return this.tokens.token();
  }

  /** GET /api/users/current. The body is not specified: any JSON object. */
  async currentUser(): Promise<CurrentUser> {
    const req: PortalRequest = { method: 'GET', path: '/api/users/current' };
    return parseResponse(currentUserSchema, req, await this.send(req));
  }

  /** GET /api/search: one page. */
  search<K extends SearchKind>(params: SearchParams<K>): Promise<SearchPage<SearchItemByKind[K]>> {
    return search(this.send, params);
  }

  /** Every page of a search, from params.pageNumber (default 1). */
  searchPages<K extends SearchKind>(params: SearchParams<K>, options?: PageIterationOptions): AsyncGenerator<SearchPage<SearchItemByKind[K]>, void, undefined> {
    return searchPages(this.send, params, options);
  }

  /** Every item of a search, across pages. */
  searchItems<K extends SearchKind>(params: SearchParams<K>, options?: PageIterationOptions): AsyncGenerator<SearchItemByKind[K], void, undefined> {
    return searchItems(this.send, params, options);
  }

  /** GET /api/newest-documents. */
  newestDocuments(): Promise<NewestDocument[]> {
    return newestDocuments(this.send);
  }

  /** Quick set of one subfield value of a record (no editation). */
  quickSetField(target: QuickSetTarget, value: QuickSetValue, options: { pathForm?: QuickSetPathForm } = {}): Promise<void> {
    return quickSetField(this.send, target, value, options.pathForm ?? this.quickSetForm);
  }

  /** GET or POST /api/record-editations/new. */
  createEditation(params: CreateEditationParams, options: { method?: EditationCreateMethod } = {}): Promise<RecordEditation> {
    return createEditation(this.send, params, options.method ?? this.editationMethod);
  }

  /** Create a field (code e.g. "245") under a new UUIDv4; returns the field id. */
  createField(editationId: string, code: string, fieldId?: string): Promise<string> {
    return createField(this.send, editationId, code, fieldId);
  }

  /** Create a subfield (code e.g. "a", or "main") under a new UUIDv4; returns the subfield id. */
  createSubfield(editationId: string, fieldId: string, code: string, subfieldId?: string): Promise<string> {
    return createSubfield(this.send, editationId, fieldId, code, subfieldId);
  }

  /** Set a subfield value in an editation, in any documented shape. */
  setEditationValue(editationId: string, fieldId: string, subfieldId: string, value: EditationValue): Promise<void> {
    return setEditationValue(this.send, editationId, fieldId, subfieldId, value);
  }

  /** Publish and save the editation. */
  publishEditation(editationId: string): Promise<void> {
    return publishEditation(this.send, editationId);
  }

  /** POST /api/records/phase. */
  setPhase(recordId: string, phase: Phase): Promise<void> {
    return setPhase(this.send, recordId, phase);
  }

  /** POST /api/record-holdings; returns the holding id. */
  createHolding(recordId: string, department: number): Promise<string> {
    return createHolding(this.send, recordId, department);
  }

  /** POST /api/sync/user. */
  syncUser(identifier: string): Promise<UserSyncResponse> {
    return syncUser(this.send, identifier);
  }

  /** POST /api/sync/user/fetch. */
  fetchUser(identifier: string): Promise<UserFetchResponse> {
    return fetchUser(this.send, identifier);
  }
}
