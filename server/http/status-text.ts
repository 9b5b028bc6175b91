// Reason phrases for the statuses we send; uWS wants "200 OK", not 200.
const REASONS: Record<number, string> = {
  200: 'OK', 206: 'Partial Content', 304: 'Not Modified',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 413: 'Payload Too Large', 416: 'Range Not Satisfiable', 429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Unknown';
}

export function statusLine(status: number): string {
  return `${status} ${reasonPhrase(status)}`;
}
