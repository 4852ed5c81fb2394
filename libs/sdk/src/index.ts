/**
 * @dtp/sdk: typed clients for the Diamond Traceability Platform's four services, generated from their OpenAPI
 * documents (openapi/*.json) with openapi-typescript, sent with openapi-fetch, plus a thin hand-written layer:
 * client-credentials tokens per audience, safe retries, typed errors. See docs/sdk.md.
 */
export { createDtpClient, newIdempotencyKey, unwrap } from './client';
export type { ApiAnswer, ApiService, DtpClient, DtpClientOptions, TokenSource } from './client';
export { DtpApiError, DtpError, DtpNetworkError, isDtpApiError, parseRetryAfter } from './errors';
export type { DtpValidationDetail } from './errors';
export { backoffDelay, DEFAULT_RETRY, isRetryEligible, RETRY_STATUSES } from './retry';
export type { FetchLike, RetryInfo, RetryOptions } from './retry';
export { ClientCredentialsTokenProvider } from './token';
export type { ClientCredentials, TokenProviderOptions } from './token';
export type * from './types';
export { signWebhook, verifyWebhook, WebhookVerificationError } from './webhooks';
export type { DtpEvent, DtpEventType, VerifyOptions } from './webhooks';
export { getOriginCredential } from './credential';
export { eventFeed, eventPages } from './events';
export type { EventFeedOptions, EventFeedPage } from './events';
export { tlsFetch } from './tls';
export type { TlsClientOptions } from './tls';
