// Small fetch helpers for the API under test.
import net from 'node:net';

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

/**
 * Sends a JSON POST on a raw socket and resolves with the socket once the request is written:
 * for tests that must control the client's side (go away early, stop reading).
 */
export function rawPost(base: string, path: string, key: string, body: unknown): Promise<net.Socket> {
  const { port } = new URL(base);
  const json = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}
