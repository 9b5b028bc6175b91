// billing/'s refusals as the API's errors.
import type { Refusal, RefusalCode } from '../../billing/refusal.ts';
import { ApiError } from './api-error.ts';

const STATUS: Record<RefusalCode, number> = {
  unauthorized: 401,
};

export function refusalError(refusal: Refusal): ApiError {
  return new ApiError(STATUS[refusal.code], refusal.code, refusal.message);
}
