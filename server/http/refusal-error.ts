// billing/'s refusals as the API's errors.
import type { Refusal, RefusalCode } from '../../billing/refusal.ts';
import { ApiError } from './api-error.ts';

const STATUS: Record<RefusalCode, number> = {
  unauthorized: 401,
  invalid_idempotency_key: 400,
  insufficient_credits: 402,
  idempotency_key_in_flight: 409,
  idempotency_key_reused: 422,
};

export function refusalError(refusal: Refusal): ApiError {
  // 'invalid_idempotency_key' is a bad parameter like any other, under the code clients know.
  const code = refusal.code === 'invalid_idempotency_key' ? 'invalid_parameters' : refusal.code;
  const retry = refusal.code === 'idempotency_key_in_flight' ? { headers: { 'Retry-After': '1' }, body: { retry_after: 1 } } : {};
  return new ApiError(STATUS[refusal.code], code, refusal.message, retry);
}
