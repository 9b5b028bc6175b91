// Why billing turned a request away. server/ answers each with its HTTP status (refusal-error.ts there).
export type RefusalCode =
  | 'unauthorized'
  | 'invalid_idempotency_key'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_flight'
  | 'insufficient_credits';

export class Refusal extends Error {
  constructor(readonly code: RefusalCode, message: string) {
    super(message);
  }
}
