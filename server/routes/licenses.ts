// GET /licenses (the calling key's licenses, newest first, paged as /usage is) and
// GET /licenses/{id} (one license as a signed certificate). Both free. Another key's license is
// a 404, exactly as an id that names none: its existence is not revealed.
import type { Sql } from '../../db/connect.ts';
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError, invalidParameters } from '../http/api-error.ts';
import { jsonReply } from '../http/reply.ts';
import { rejectQueryParameters } from '../http/query.ts';
import { pageOf } from './paging.ts';
import { grantingRequestOf, readLicense, readLicensePage } from '../../billing/licenses.ts';
import { certificateOf } from '../../billing/license-certificate.ts';
import { signCertificate } from '../../billing/license-signature.ts';
import type { SigningKey } from '../../billing/license-signing-key.ts';
import { quoted } from '../http/value-preview.ts';

export function licenseListEndpoint(sql: Sql): Endpoint {
  return {
    name: '/licenses',
    cost: 0,
    jsonBody: false,
    async handle({ admission, query }) {
      const { limit, offset } = pageOf(query);
      const page = await readLicensePage(sql, admission.keyId, limit, offset);
      return jsonReply({ licenses: page.licenses, total_count: page.total_count, offset, limit });
    },
  };
}

/** A 400 for an id not of a license's shape (no license could have it), before any lookup: the API's and the dashboard's. */
export function checkLicenseId(id: string): void {
  if (grantingRequestOf(id) === undefined) {
    throw invalidParameters(`license id ${quoted(id)} is malformed: license ids look like "lic_AbCd-_12_3f" (X-License-Id of a download, or license_id in GET /licenses)`);
  }
}

export function licenseCertificateEndpoint(sql: Sql, key: SigningKey): Endpoint {
  return {
    name: '/licenses/{id}',
    cost: 0,
    jsonBody: false,
    paramCount: 1,
    async handle({ admission, params, query }) {
      rejectQueryParameters(query, []);
      const id = params[0];
      checkLicenseId(id);
      const found = await readLicense(sql, admission.keyId, id);
      if (!found) throw new ApiError(404, 'not_found', `no license ${quoted(id)} for this API key`);
      return jsonReply(signCertificate(certificateOf(found.license, found.keyPrefix), key));
    },
  };
}
