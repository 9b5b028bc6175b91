// Signing in and out, the session's own details (with its CSRF token), and changing the password.
import { ApiError, invalidParameters } from '../../http/api-error.ts';
import { jsonReply } from '../../http/reply.ts';
import { rejectQueryParameters } from '../../http/query.ts';
import { findAccountById, findAccountByEmail, setPassword } from '../../../billing/accounts.ts';
import { passwordProblem, verifyPassword, MAX_PASSWORD_LENGTH } from '../../../billing/passwords.ts';
import { createSession, endSession, randomToken, type Session } from '../../../billing/sessions.ts';
import { loginSubjects, succeeded, takeAttempt, type Subject } from '../../../billing/login-throttle.ts';
import type { Sql } from '../../../db/connect.ts';
import { checkCsrf, type DashboardDeps, type DashboardRequest, type DashboardRoute } from '../dashboard-route.ts';
import { clearedCookie, cookieValue, LOGIN_CSRF_COOKIE, loginCsrfCookie, SESSION_COOKIE, sessionCookie } from '../cookies.ts';

const MAX_EMAIL_FIELD = 254;

function stringField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0) throw invalidParameters(`${name} is required (a string)`);
  if (value.length > max) throw invalidParameters(`${name} is longer than ${max} characters`);
  return value;
}

function onlyFields(body: Record<string, unknown>, allowed: string[]): void {
  for (const field of Object.keys(body)) if (!allowed.includes(field)) throw invalidParameters(`unknown field "${field}"; allowed: ${allowed.join(', ')}`);
}

/** Takes a sign-in attempt, or refuses with the wait: the same words whether or not the account exists. */
async function attempt(sql: Sql, subjects: Subject[]): Promise<void> {
  const wait = await takeAttempt(sql, subjects);
  if (wait > 0) {
    throw new ApiError(429, 'too_many_attempts', `too many failed sign-in attempts; try again in ${wait} s`, { headers: { 'Retry-After': String(wait) }, body: { retry_after: wait } });
  }
}

function sessionJson(session: { email: string; tier: string; csrfToken: string; passwordMustChange: boolean; expiresAt: Date }) {
  return { email: session.email, tier: session.tier, csrf_token: session.csrfToken, must_change_password: session.passwordMustChange, expires_at: session.expiresAt.toISOString() };
}

async function login(deps: DashboardDeps, request: DashboardRequest) {
  // No session yet to hold a CSRF token: the form's token must equal the cookie set with it.
  checkCsrf(request.csrfHeader, cookieValue(request.cookies, LOGIN_CSRF_COOKIE) || '\0');
  const body = await request.json();
  onlyFields(body, ['email', 'password']);
  const email = stringField(body, 'email', MAX_EMAIL_FIELD);
  const password = stringField(body, 'password', MAX_PASSWORD_LENGTH);
  const subjects = loginSubjects(email, request.address);
  await attempt(deps.sql, subjects);
  const account = await findAccountByEmail(deps.sql, email);
  if (!(await verifyPassword(password, account?.passwordHash))) throw new ApiError(401, 'unauthorized', 'wrong email or password');
  await succeeded(deps.sql, subjects);
  const session = await createSession(deps.sql, account!.id);
  const json = sessionJson({ email: account!.email, tier: account!.tier, csrfToken: session.csrfToken, passwordMustChange: account!.passwordMustChange, expiresAt: session.expiresAt });
  return jsonReply(json, 200, { 'Set-Cookie': sessionCookie(session.token, session.expiresAt, request.host) });
}

async function changePassword(deps: DashboardDeps, request: DashboardRequest, session: Session) {
  const body = await request.json();
  onlyFields(body, ['current_password', 'new_password']);
  const current = stringField(body, 'current_password', MAX_PASSWORD_LENGTH);
  const problem = passwordProblem(body.new_password);
  if (problem) throw invalidParameters(problem);
  const next = body.new_password as string;
  if (next === current) throw invalidParameters('the new password must differ from the current one');
  // Guessing through this form is throttled as sign-in is.
  const subjects = loginSubjects(session.email, request.address);
  await attempt(deps.sql, subjects);
  const account = await findAccountById(deps.sql, session.accountId);
  if (!(await verifyPassword(current, account?.passwordHash))) throw new ApiError(403, 'wrong_password', 'current_password is not this account\'s password');
  await succeeded(deps.sql, subjects);
  await setPassword(deps.sql, session.accountId, next, { oneTime: false, keepSession: session.tokenHash });
  return jsonReply({ changed: true, other_sessions_signed_out: true });
}

export function sessionRoutes(deps: DashboardDeps): DashboardRoute[] {
  return [
    {
      method: 'get', path: '/dashboard/api/login-token', access: 'public',
      async handle(request) {
        rejectQueryParameters(request.query, []);
        const token = randomToken();
        return jsonReply({ csrf_token: token }, 200, { 'Set-Cookie': loginCsrfCookie(token, request.host) });
      },
    },
    { method: 'post', path: '/dashboard/api/login', access: 'public', handle: (request) => login(deps, request) },
    {
      method: 'post', path: '/dashboard/api/logout', access: 'password-change',
      async handle(request, session) {
        await endSession(deps.sql, session!.tokenHash);
        return jsonReply({ signed_out: true }, 200, { 'Set-Cookie': clearedCookie(SESSION_COOKIE, request.host) });
      },
    },
    {
      method: 'get', path: '/dashboard/api/session', access: 'password-change',
      async handle(request, session) {
        rejectQueryParameters(request.query, []);
        return jsonReply(sessionJson(session!));
      },
    },
    { method: 'post', path: '/dashboard/api/password', access: 'password-change', handle: (request, session) => changePassword(deps, request, session!) },
  ];
}
