// The client's address, for limits kept per address (the dashboard's sign-in throttle). Behind a
// front, every peer is the front: a front named in TRUSTED_PROXIES is believed about the client it
// forwards (deploy/nginx.conf sets X-Forwarded-For to the one address it was reached from). A
// client's own X-Forwarded-For is never believed: anyone can write one.
export function clientAddress(peer: string, forwardedFor: string, trustedProxies: ReadonlySet<string>): string {
  if (!trustedProxies.has(peer)) return peer;
  const nearest = forwardedFor.split(',').pop()?.trim(); // the address the front itself saw
  return nearest || peer;
}
