// The HTTP reference: a bare uWS handler answering a /me-sized JSON body, with no auth, no database.
import uws from 'uWebSockets.js';

const body = JSON.stringify({
  tier: 'pro', credits_remaining: 50000, monthly_allowance: 50000,
  rate_limit: { requests_per_minute: 300, requests_per_day: null },
  created_at: new Date().toISOString(), last_used_at: new Date().toISOString(),
});

uws.App()
  .get('/*', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    console.log(`listening on http://127.0.0.1:${uws.us_socket_local_port(socket)}/`);
  });
process.on('SIGTERM', () => process.exit(0));
