// The dashboard's cookies: HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure unless the
// request was made to this machine by name (a browser keeps Secure cookies only over HTTPS, and
// treats http://localhost as secure enough for development only when told nothing else).

export const SESSION_COOKIE = 'mla_session';
/** The double-submit token of the sign-in form (there is no session to hold a CSRF token yet). */
export const LOGIN_CSRF_COOKIE = 'mla_login_csrf';
const COOKIE_PATH = '/dashboard';
const LOGIN_CSRF_MAX_AGE_SECONDS = 60 * 60;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host header, without its port. */
function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
}

export function isLocalHost(host: string): boolean {
  return LOCAL_HOSTS.has(hostName(host).toLowerCase());
}

/** One cookie's value from a Cookie header ('' when absent). */
export function cookieValue(header: string, name: string): string {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

function cookie(name: string, value: string, host: string, maxAgeSeconds: number | undefined): string {
  const attributes = [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== undefined) attributes.push(`Max-Age=${maxAgeSeconds}`);
  if (!isLocalHost(host)) attributes.push('Secure');
  return attributes.join('; ');
}

export function sessionCookie(token: string, expiresAt: Date, host: string): string {
  return cookie(SESSION_COOKIE, token, host, Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)));
}

export function loginCsrfCookie(token: string, host: string): string {
  return cookie(LOGIN_CSRF_COOKIE, token, host, LOGIN_CSRF_MAX_AGE_SECONDS);
}

export function clearedCookie(name: string, host: string): string {
  return cookie(name, '', host, 0);
}
