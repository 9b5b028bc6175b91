// Any error a request can end with, as the API's reply: ours (ApiError), billing's refusals, a
// database that cannot be reached (503 with Retry-After: nothing was charged), a client that left,
// and anything else (500, logged).
import { CLIENT_CLOSED } from './finish.ts';
import { ApiError } from './api-error.ts';
import { ClientGone } from './client-watch.ts';
import { errorReply, internalErrorReply, type Reply } from './reply.ts';
import { refusalError } from './refusal-error.ts';
import { Refusal } from '../../billing/refusal.ts';
import { isDatabaseUnavailable } from '../../db/failures.ts';
import { StorageUnavailable, StoredObjectMissing } from '../../catalog/storage/catalog-storage.ts';

// Long enough for a restarting database, short enough that a client's retry finds it back.
export const DATABASE_RETRY_AFTER_SECONDS = 2;
/** After the object store failed to answer within its deadline (catalog/storage/s3-objects.ts). */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

export type Log = (message: string, err?: unknown) => void;

export function errorReplyFor(err: unknown, requestId: string, log: Log): Reply {
  if (err instanceof ApiError) return errorReply(err, requestId);
  if (err instanceof Refusal) return errorReply(refusalError(err), requestId);
  if (err instanceof ClientGone) return errorReply(new ApiError(CLIENT_CLOSED, 'client_closed', 'client closed the request'), requestId);
  if (err instanceof StorageUnavailable) {
    log(`request ${requestId}: ${err.message}`);
    const seconds = STORAGE_RETRY_AFTER_SECONDS;
    return errorReply(new ApiError(503, 'service_unavailable', `the audio store is unavailable; nothing was charged; retry after ${seconds} s`, { headers: { 'Retry-After': String(seconds) }, body: { retry_after: seconds } }), requestId);
  }
  if (err instanceof StoredObjectMissing) {
    // The catalog names audio the store has not got: a fault of this service, said as such.
    log(`request ${requestId}: ${err.message}`);
    return errorReply(new ApiError(500, 'internal_error', `this track's audio is ${err.problem === 'missing' ? 'missing from' : 'damaged in'} the store (${err.key}); nothing was charged`), requestId);
  }
  // After the store's errors: a refused connection to the store is not the database's.
  if (isDatabaseUnavailable(err)) {
    noteUnavailable(log, requestId, err as Error);
    return errorReply(databaseUnavailable(), requestId);
  }
  log(`request ${requestId}: internal error`, err);
  return internalErrorReply(requestId);
}

// During an outage every request fails the same way: one line per interval, with the count.
const UNAVAILABLE_LOG_INTERVAL_MS = 5_000;
let unavailableSince = 0;
let unavailableCount = 0;

function noteUnavailable(log: Log, requestId: string, err: Error): void {
  unavailableCount += 1;
  const now = Date.now();
  if (now - unavailableSince < UNAVAILABLE_LOG_INTERVAL_MS) return;
  log(`request ${requestId}: database unavailable (${err.message}); ${unavailableCount} requests answered 503 since the last report`);
  unavailableSince = now;
  unavailableCount = 0;
}

export function databaseUnavailable(): ApiError {
  const seconds = DATABASE_RETRY_AFTER_SECONDS;
  return new ApiError(503, 'service_unavailable', `the database is unavailable; nothing was charged; retry after ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
    body: { retry_after: seconds },
  });
}
