// Small fetch helpers for the API under test.
export const API = '/api/external/v1';

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(base: string, method: string, path: string, key?: string, body?: unknown): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed };
}
