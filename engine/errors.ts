// Typed engine errors: the server maps each code to an HTTP status without parsing messages.
export type EngineErrorCode =
  | 'invalid_audio' // not MP3, corrupt, truncated, empty
  | 'duration_unavailable' // requested clip longer than the track
  | 'hit_point_unreachable' // the peak cannot land at the requested offset
  | 'busy'; // the worker pool's queue is full

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    /** Machine-readable details, e.g. the feasible range { min, max } in seconds. */
    readonly details: Record<string, number> = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof Error && err.name === 'EngineError' && 'code' in err;
}
