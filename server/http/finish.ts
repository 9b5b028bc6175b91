// The callback a route's handler calls once its request is finished (its own file: the app that
// hands it out and the handlers that call it both need the type).

/** The status a request is recorded with when its client went away before the reply (nginx's convention). */
export const CLIENT_CLOSED = 499;

/**
 * Reports a finished request (its log line and metrics): buildApp gives each route's handler one,
 * which names the route. `authorization` is the header as sent: only its key's prefix is logged.
 */
export type Finish = (requestId: string, startedAt: number, status: number, credits?: number, authorization?: string) => void;
