// The account's keys, overview, usage and licenses as JSON for the pages. Every read and change
// is bounded by the session's account (billing/account-*.ts).
import { ApiError, invalidParameters } from '../../http/api-error.ts';
import { jsonReply } from '../../http/reply.ts';
import { integerQueryParameter, rejectQueryParameters } from '../../http/query.ts';
import { pageOf } from '../../routes/paging.ts';
import { checkLicenseId } from '../../routes/licenses.ts';
import { quoted } from '../../http/value-preview.ts';
import type { UsageLog } from '../../../billing/usage-log.ts';
import { createAccountKey, listAccountKeys, MAX_KEY_NAME_LENGTH, revokeAccountKey } from '../../../billing/account-keys.ts';
import { accountEndpoints, readAccountUsage, readDailyUsage, readRequestCounts } from '../../../billing/account-usage.ts';
import { readAccountLicense, readAccountLicenses } from '../../../billing/account-licenses.ts';
import { certificateOf } from '../../../billing/license-certificate.ts';
import { signCertificate } from '../../../billing/license-signature.ts';
import type { SigningKey } from '../../../billing/license-signing-key.ts';
import type { DashboardDeps, DashboardRequest, DashboardRoute } from '../dashboard-route.ts';

export interface AccountRouteDeps extends DashboardDeps {
  usage: UsageLog;
  signingKey: SigningKey;
}

const KEY_ID_PARAMETER = { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 0 };
/** A key's name shows something: a character that is not a space, a control or an invisible format character. */
const VISIBLE = /[^\p{Z}\p{Cc}\p{Cf}]/u;
/**
 * What a key's name may not hold, since lists and logs print it: controls, overrides of the text's
 * direction, and a lone surrogate (PostgreSQL would keep it as U+FFFD; with the u flag a surrogate
 * range matches only an unpaired one).
 */
const UNSHOWABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;
/** An endpoint's name as usage records it ("/search", "/tracks/{id}/analysis"): printable ASCII, up to 100 characters. */
const ENDPOINT_NAME = /^\/[\x21-\x7e]{0,99}$/;

function keyIdParam(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw invalidParameters(`key id must be a positive integer, got "${raw}"`);
  return Number(raw);
}

async function createKey(deps: AccountRouteDeps, request: DashboardRequest, accountId: number) {
  const body = await request.json();
  for (const field of Object.keys(body)) if (field !== 'name') throw invalidParameters(`unknown field "${field}"; allowed: name`);
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (!VISIBLE.test(name)) throw invalidParameters('name is required: a name for the key, e.g. "My app"');
  if (UNSHOWABLE.test(name)) throw invalidParameters('name holds a control character, a text-direction override or a lone surrogate; use plain text');
  if (name.length > MAX_KEY_NAME_LENGTH) throw invalidParameters(`name is longer than ${MAX_KEY_NAME_LENGTH} characters`);
  const created = await createAccountKey(deps.sql, accountId, name);
  // The only time the key exists outside the caller's hands: in this reply, never in a log.
  return jsonReply({ id: created.id, name, prefix: created.prefix, key: created.key }, 201);
}

/** Usage: paged as /usage, filtered by key_id, endpoint and status. */
async function usagePage(deps: AccountRouteDeps, request: DashboardRequest, accountId: number) {
  const query = new URLSearchParams(request.query);
  const keyId = query.has('key_id') ? integerQueryParameter(query, 'key_id', KEY_ID_PARAMETER) : undefined;
  const statusCode = query.has('status') ? integerQueryParameter(query, 'status', { min: 100, max: 599, fallback: 0 }) : undefined;
  const endpoint = query.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !ENDPOINT_NAME.test(endpoint)) throw invalidParameters('endpoint must be an endpoint name such as /search');
  for (const name of ['key_id', 'status', 'endpoint']) {
    if (query.getAll(name).length > 1) throw invalidParameters(`query parameter "${name}" given more than once`);
    query.delete(name);
  }
  const { limit, offset } = pageOf(query);
  await deps.usage.flush(); // the records of requests just made
  const [page, endpoints] = await Promise.all([readAccountUsage(deps.sql, accountId, { keyId, endpoint, statusCode }, limit, offset), accountEndpoints(deps.sql, accountId)]);
  return jsonReply({ ...page, offset, limit, endpoints });
}

async function overview(deps: AccountRouteDeps, accountId: number, tier: string) {
  await deps.usage.flush();
  const [keys, requests, daily] = await Promise.all([listAccountKeys(deps.sql, accountId), readRequestCounts(deps.sql, accountId), readDailyUsage(deps.sql, accountId)]);
  return jsonReply({ tier, keys: keys.filter((k) => k.status === 'active'), requests_today: requests.today, requests_this_month: requests.month, daily });
}

export function accountRoutes(deps: AccountRouteDeps): DashboardRoute[] {
  return [
    {
      method: 'get', path: '/dashboard/api/keys', access: 'signed-in',
      async handle(request, session) {
        rejectQueryParameters(request.query, []);
        return jsonReply({ keys: await listAccountKeys(deps.sql, session!.accountId) });
      },
    },
    { method: 'post', path: '/dashboard/api/keys', access: 'signed-in', handle: (request, session) => createKey(deps, request, session!.accountId) },
    {
      method: 'post', path: '/dashboard/api/keys/:id/revoke', paramCount: 1, access: 'signed-in',
      async handle(request, session) {
        const keyId = keyIdParam(request.params[0]);
        if (!(await revokeAccountKey(deps.sql, session!.accountId, keyId))) throw new ApiError(404, 'not_found', `no active API key ${keyId} in this account`);
        return jsonReply({ id: keyId, status: 'revoked' });
      },
    },
    {
      method: 'get', path: '/dashboard/api/overview', access: 'signed-in',
      async handle(request, session) {
        rejectQueryParameters(request.query, []);
        return overview(deps, session!.accountId, session!.tier);
      },
    },
    { method: 'get', path: '/dashboard/api/usage', access: 'signed-in', handle: (request, session) => usagePage(deps, request, session!.accountId) },
    {
      method: 'get', path: '/dashboard/api/licenses', access: 'signed-in',
      async handle(request, session) {
        const { limit, offset } = pageOf(request.query);
        return jsonReply({ ...(await readAccountLicenses(deps.sql, session!.accountId, limit, offset)), offset, limit });
      },
    },
    {
      // The API's certificate (GET /licenses/{id} needs the key); the same signed document here.
      method: 'get', path: '/dashboard/api/licenses/:id', paramCount: 1, access: 'signed-in',
      async handle(request, session) {
        rejectQueryParameters(request.query, []);
        const id = request.params[0];
        checkLicenseId(id);
        const found = await readAccountLicense(deps.sql, session!.accountId, id);
        if (!found) throw new ApiError(404, 'not_found', `no license ${quoted(id)} in this account`);
        return jsonReply(signCertificate(certificateOf(found.license, found.keyPrefix), deps.signingKey));
      },
    },
  ];
}
