/**
 * User synchronisation from an external system (spec "User sync and fetch"): both take the
 * user's identifier in the external system.
 */
import { parseResponse, type PortalRequest, type SendFn } from './http.js';
import { userFetchResponseSchema, userSyncResponseSchema, type UserFetchResponse, type UserSyncResponse } from './schemas.js';

function checkIdentifier(identifier: string): void {
  if (identifier.length === 0) throw new RangeError('identifier must not be empty');
}

/** POST /api/sync/user: create or update the user; per item its SyncWay and label. */
export async function syncUser(send: SendFn, identifier: string): Promise<UserSyncResponse> {
  checkIdentifier(identifier);
  const req: PortalRequest = { method: 'POST', path: '/api/sync/user', json: { identifier } };
  return parseResponse(userSyncResponseSchema, req, await send(req));
}

/** POST /api/sync/user/fetch: the user's data as the external system has it, nothing saved. */
export async function fetchUser(send: SendFn, identifier: string): Promise<UserFetchResponse> {
  checkIdentifier(identifier);
  const req: PortalRequest = { method: 'POST', path: '/api/sync/user/fetch', json: { identifier } };
  return parseResponse(userFetchResponseSchema, req, await send(req));
}
