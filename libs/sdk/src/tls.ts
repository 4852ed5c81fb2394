import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, IncomingMessage } from 'node:http';
import type { FetchLike } from './retry';

/**
 * A client certificate for mutual TLS (docs/auth.md "Mutual TLS"): a legacy participant's registered certificate
 * and its key (PEM), and the CA that signed the services' server certificates when it is not a public one (the
 * `npm start -- --tls` development CA, say).
 */
export interface TlsClientOptions {
  /** PEM text, or its bytes (a Buffer from readFileSync is fine). Typed without Node's `Buffer`, so a program need not load @types/node. */
  cert: string | Uint8Array;
  key: string | Uint8Array;
  ca?: string | Uint8Array;
}

const pem = (value: string | Uint8Array): string | Buffer => (typeof value === 'string' ? value : Buffer.from(value));

/**
 * A fetch that makes HTTPS requests with a client certificate (Node's https module; the global fetch takes no
 * certificate). Plain `http:` URLs go out as usual, without the certificate. The request is read whole first
 * (bodies are small, or file uploads the SDK buffers for retries anyway), and so is the answer.
 */
export function tlsFetch(tls: TlsClientOptions): FetchLike {
  const agent = new Agent({ cert: pem(tls.cert), key: pem(tls.key), ca: tls.ca === undefined ? undefined : pem(tls.ca), keepAlive: true });
  return async (url, init) => {
    // Request serialises whatever body fetch accepts (FormData with its boundary, streams, buffers) and its headers.
    const request = new Request(url, init);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    if (body !== undefined) headers['content-length'] = String(body.length);
    const u = new URL(request.url);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const options = { method: request.method, headers, signal: init.signal ?? undefined };
      const req = u.protocol === 'https:' ? httpsRequest(u, { ...options, agent }, resolve) : httpRequest(u, options, resolve);
      req.on('error', reject);
      req.end(body);
    });
    const chunks: Buffer[] = [];
    for await (const chunk of answer) chunks.push(chunk as Buffer);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
    }
    const status = answer.statusCode ?? 0;
    const noBody = status === 204 || status === 304 || request.method === 'HEAD';
    const response = new Response(noBody ? null : Buffer.concat(chunks), { status, statusText: answer.statusMessage, headers: responseHeaders });
    Object.defineProperty(response, 'url', { value: request.url });
    return response;
  };
}
