// Calls to /dashboard/api: JSON in and out, the session's CSRF token on every call that acts,
// errors as ApiFailure with the API's message. An expired session goes back to the sign-in page.
let session;

export class ApiFailure extends Error {
  constructor(status, body) {
    super(body?.message ?? `request failed with status ${status}`);
    this.status = status;
    this.code = body?.code;
    this.body = body;
  }
}

/** The signed-in account: email, tier, csrf_token, must_change_password (fetched once per page). */
export async function currentSession() {
  session ??= request('/dashboard/api/session', { csrf: false });
  return session;
}

async function failureOf(response) {
  const body = await response.json().catch(() => undefined);
  // Only the session's 401 names the sign-in page: a catalog call's 401 is its key's (revoked), shown where it was made.
  if (response.status === 401 && body?.sign_in && !location.pathname.endsWith('/login')) location.assign(body.sign_in);
  if (response.status === 403 && body?.code === 'password_change_required') location.assign('/dashboard/password');
  return new ApiFailure(response.status, body);
}

/**
 * `csrf`: send the session's token (every POST, and the catalog calls that act with a key).
 * `raw`: return the Response (a download) instead of its JSON.
 */
export async function request(path, { method = 'GET', body, csrf = method !== 'GET', raw = false, csrfToken } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf) headers['X-CSRF-Token'] = csrfToken ?? (await currentSession()).csrf_token;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (!response.ok) throw await failureOf(response);
  return raw ? response : response.json();
}
