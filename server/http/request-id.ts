// Request ids: unique per process (random tag) and cheap (a counter), e.g. "req_k3v9x2a1f_1b".
import crypto from 'node:crypto';

const processTag = crypto.randomBytes(6).toString('base64url');
let counter = 0;

export function newRequestId(): string {
  counter += 1;
  return `req_${processTag}_${counter.toString(36)}`;
}
