/**
 * One delivery: the body of service-spec.md, Events, its headers (the spec's bearer, plus the
 * Standard Webhooks signature headers), and one POST through the outbound guard with the spec's
 * 5-second limit. No retries (service-spec.md, Events rules).
 */
import { Webhook } from 'standardwebhooks';
import type { Outbound } from '../ports/outbound.ts';
import type { DeliveryContext } from './webhook.schema.ts';

/** The receiver answers within 5 seconds (service-spec.md, Limits: webhook acknowledgement). */
export const DELIVERY_TIMEOUT_MS = 5000;
/** Receivers answer with a short acknowledgement; a longer body is read no further. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What a delivery is made of: the event (never message content) and the configuration's fields. */
export interface DeliveryInput {
  deliveryId: string;
  event: string;
  message: string;
  status: string | null;
  consultationId: string | null;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: Record<string, unknown>;
  sessionKey: string;
  conversationSessionKey: string | null;
  deliveryContext: DeliveryContext | null;
  webhookUrl: string;
  webhookToken: string | null;
  signingSecret: string;
}

/** The JSON body (service-spec.md, Events, body fields). `eventId` is the delivery's id, for dedup. */
export function deliveryBody(d: DeliveryInput): Record<string, unknown> {
  return {
    event: d.event,
    message: d.message,
    ...(d.status ? { status: d.status } : {}),
    eventId: d.deliveryId,
    timestamp: d.timestamp,
    ...(d.consultationId ? { consultationId: d.consultationId } : {}),
    mode: 'now',
    sessionKey: d.sessionKey,
    ...(d.conversationSessionKey ? { conversationSessionKey: d.conversationSessionKey } : {}),
    ...(d.deliveryContext ? { deliveryContext: d.deliveryContext } : {}),
    ...(Object.keys(d.data).length ? { data: d.data } : {}),
  };
}

/** The outcome the delivery log keeps: never the body or the secrets. */
export interface DeliveryOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

function describeError(e: unknown): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.code === 'UND_ERR_ABORTED' || err.name === 'AbortError') return `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  if (err.code === 'ERR_BLOCKED_ADDRESS') return (err.message ?? 'refused').slice(0, 300);
  if (err.code === 'ERR_RESPONSE_TOO_LARGE') return `answer body over ${MAX_ANSWER_BYTES} bytes`;
  const code = err.cause?.code ?? err.code;
  return `${code ? `${code}: ` : ''}${(err.cause?.message ?? err.message ?? 'request failed').slice(0, 200)}`;
}

/**
 * POSTs one delivery. Headers: `Authorization: Bearer <webhookToken>` when a token is set,
 * `webhook-id` (= eventId), `webhook-timestamp` (seconds), `webhook-signature` (`v1,<HMAC-SHA256>`
 * over `id.timestamp.body` with the configuration's whsec_ secret: standardwebhooks.com).
 * Never throws: a refusal, a timeout or a non-2xx is an outcome.
 */
export async function sendDelivery(outbound: Outbound, d: DeliveryInput, now: Date): Promise<DeliveryOutcome> {
  const body = JSON.stringify(deliveryBody(d));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'carebridge-webhooks/1',
    'webhook-id': d.deliveryId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(d.signingSecret).sign(d.deliveryId, now, body),
  };
  if (d.webhookToken) headers.authorization = `Bearer ${d.webhookToken}`;
  const t0 = performance.now();
  try {
    const res = await outbound.request(d.webhookUrl, { method: 'POST', headers, body, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES });
    const latencyMs = Math.round(performance.now() - t0);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `HTTP ${res.status}`, latencyMs };
  } catch (e) {
    return { ok: false, statusCode: null, error: describeError(e), latencyMs: Math.round(performance.now() - t0) };
  }
}
