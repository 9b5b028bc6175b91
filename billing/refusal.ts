// Why billing turned a request away. server/ answers each with its HTTP status (refusal-reply.ts there).
export type RefusalCode = 'unauthorized';

export class Refusal extends Error {
  constructor(readonly code: RefusalCode, message: string) {
    super(message);
  }
}
