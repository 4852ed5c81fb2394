import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook events (docs/webhooks.md): the CloudEvents 1.0 platform POSTs to your webhooks and serves on
 * `GET /events`, and `verifyWebhook`, the Standard Webhooks signature check.
 */
export type DtpEventType =
  | 'dtp.shipment.inbound'
  | 'dtp.shipment.accepted'
  | 'dtp.shipment.rejected'
  | 'dtp.diamond.updated'
  | 'dtp.diamond.deleted'
  | 'dtp.grading.received'
  | 'dtp.validation.answered'
  | 'dtp.ping';

/** A CloudEvent as platform sends it (structured JSON mode). */
export interface DtpEvent<T = Record<string, unknown>> {
  specversion: '1.0';
  id: string;
  source: string;
  type: DtpEventType;
  time: string;
  /** The diamond or shipment id the event is about. */
  subject: string;
  datacontenttype: 'application/json';
  data: T;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300): older messages are replays. */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  now?: number;
}

function header(headers: Record<string, string | string[] | undefined> | Headers, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const v = h[name] ?? h[Object.keys(h).find((k) => k.toLowerCase() === name) ?? ''];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks a webhook request's Standard Webhooks signature and answers its event. `body` is the raw request body, as
 * received (before any JSON parsing); `secret` is the webhook's `whsec_...` secret. Throws WebhookVerificationError
 * when a header is missing, the timestamp is outside the tolerance, or no signature matches.
 *
 *   const event = verifyWebhook(rawBody, req.headers, process.env.DTP_WEBHOOK_SECRET!);
 */
export function verifyWebhook<T = Record<string, unknown>>(
  body: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
  opts: VerifyOptions = {},
): DtpEvent<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  const ts = Number(timestamp);
  const now = (opts.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - ts) > (opts.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is too old or too new');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const ok = signatures.split(' ').some((s) => {
    const [version, sig] = s.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!ok) throw new WebhookVerificationError('no webhook-signature matches');
  return JSON.parse(text) as DtpEvent<T>;
}

/**
 * The Standard Webhooks headers of `body` signed with `secret` (`whsec_...`): what platform sends, for a receiver's
 * own tests and for `dtp events listen --forward-to`.
 */
export function signWebhook(secret: string, id: string, body: string, timestamp: number = Math.floor(Date.now() / 1000)): Record<string, string> {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
