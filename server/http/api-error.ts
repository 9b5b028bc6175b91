// An error that maps to an HTTP status and a stable snake_case code (design: "Errors").
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra fields for the error body (e.g. retry_after) and response headers. */
    readonly extra: { body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export function invalidParameters(message: string): ApiError {
  return new ApiError(400, 'invalid_parameters', message);
}
