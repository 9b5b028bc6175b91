// The HTTP reference: a bare uWS handler with no auth, no database. Without an argument it answers
// a /me-sized JSON body; with a byte count it reads the request body and answers that many bytes
// of audio/mpeg (the size of a cached clip).
import uws from 'uWebSockets.js';

const bytes = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
const body = bytes === undefined
  ? JSON.stringify({
    tier: 'pro', credits_remaining: 50000, monthly_allowance: 50000,
    rate_limit: { requests_per_minute: 300, requests_per_day: null },
    created_at: new Date().toISOString(), last_used_at: new Date().toISOString(),
  })
  : Buffer.alloc(bytes, 0x55);
const contentType = bytes === undefined ? 'application/json' : 'audio/mpeg';

const answer = (res: uws.HttpResponse): void => {
  res.cork(() => res.writeHeader('Content-Type', contentType).end(body));
};

uws.App()
  .get('/*', answer)
  .post('/*', (res) => {
    res.onAborted(() => {});
    res.onData((_chunk, last) => {
      if (last) answer(res);
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    console.log(`listening on http://127.0.0.1:${uws.us_socket_local_port(socket)}/`);
  });
process.on('SIGTERM', () => process.exit(0));
