/** Library portal API client (library-portal-api.md). */
export { PortalClient, type PortalClientOptions } from './client.js';
export { TokenManager, authorizedSend, type AccessToken, type PortalGrant, type TokenOptions } from './auth.js';
export {
  PortalError,
  PortalHttpError,
  PortalNetworkError,
  PortalNotJsonError,
  PortalResponseError,
  PortalTokenError,
  type PortalResponseIssue,
} from './errors.js';
export type { PortalLogger, PortalRequest, PortalResponse, SendFn } from './http.js';
export type { PageIterationOptions, SearchParams } from './search.js';
export { PHASES, quickSetPath, type Phase, type QuickSetPathForm, type QuickSetTarget, type QuickSetValue } from './records.js';
export type { CreateEditationParams, EditationCreateMethod, EditationValue, RecordKind, RevisionSavingPolicy, SubfieldTypeId } from './editation.js';
export * from './schemas.js';
export {
  PORTAL_CREDENTIAL,
  PortalCredentialsError,
  credentialsPath,
  portalConfigSchema,
  portalCredentialsSchema,
  readPortalCredentials,
  type PortalConfig,
  type PortalConfigInput,
  type PortalCredentials,
} from './config.js';
