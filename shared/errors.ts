import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The closed catalogue of error codes. Every error that leaves the service (HTTP or gRPC) is one of
 * these; the public message is fixed per case and never carries internal detail.
 */
export const ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'rate_limited',
  'quota_exceeded',
  'payload_too_large',
  'unsupported_media_type',
  'request_timeout',
  'not_acceptable',
  'method_not_allowed',
  'headers_too_large',
  'unavailable',
  'deadline_exceeded',
  'resource_exhausted',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  quota_exceeded: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_timeout: 408,
  not_acceptable: 406,
  method_not_allowed: 405,
  headers_too_large: 431,
  unavailable: 503,
  deadline_exceeded: 504,
  resource_exhausted: 503,
  internal: 500,
};

export const GRPC_STATUS: Record<ErrorCode, GrpcStatus> = {
  bad_request: GrpcStatus.INVALID_ARGUMENT,
  unauthorized: GrpcStatus.UNAUTHENTICATED,
  forbidden: GrpcStatus.PERMISSION_DENIED,
  not_found: GrpcStatus.NOT_FOUND,
  rate_limited: GrpcStatus.RESOURCE_EXHAUSTED,
  quota_exceeded: GrpcStatus.RESOURCE_EXHAUSTED,
  payload_too_large: GrpcStatus.INVALID_ARGUMENT,
  unsupported_media_type: GrpcStatus.INVALID_ARGUMENT,
  request_timeout: GrpcStatus.DEADLINE_EXCEEDED,
  not_acceptable: GrpcStatus.INVALID_ARGUMENT,
  method_not_allowed: GrpcStatus.UNIMPLEMENTED,
  headers_too_large: GrpcStatus.INVALID_ARGUMENT,
  unavailable: GrpcStatus.UNAVAILABLE,
  deadline_exceeded: GrpcStatus.DEADLINE_EXCEEDED,
  resource_exhausted: GrpcStatus.RESOURCE_EXHAUSTED,
  internal: GrpcStatus.INTERNAL,
};

/** Inverse of GRPC_STATUS for what a renderer answers; anything unlisted is treated as internal. */
export function codeFromGrpcStatus(s: GrpcStatus): ErrorCode {
  switch (s) {
    case GrpcStatus.INVALID_ARGUMENT:
      return 'bad_request';
    case GrpcStatus.NOT_FOUND:
      return 'not_found';
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 'resource_exhausted';
    case GrpcStatus.UNAVAILABLE:
      return 'unavailable';
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'deadline_exceeded';
    case GrpcStatus.PERMISSION_DENIED:
      return 'forbidden';
    case GrpcStatus.UNAUTHENTICATED:
      return 'unauthorized';
    default:
      return 'internal';
  }
}

/** Fixed public messages for the cases the spec names, and generic ones for the rest. */
export const MESSAGES = {
  missingKey: 'The x-api-key header is missing',
  invalidKey: 'The API key is unknown or revoked',
  noContract: 'No active contract for this key',
  banned: 'Organization access is disabled',
  categoryNotInContract: 'Contract does not include this vehicle category',
  formatNotInContract: (format: string) => `Format ${format} is not included in this contract`,
  spinNotInContract: 'Spin is not included in this contract',
  noSpin: 'No spin is available for this vehicle',
  rateLimited: 'Requests per minute exceeded for this key',
  quotaExceeded: 'Monthly request quota exceeded for this organization',
  notFound: 'The requested resource was not found',
  internal: 'An unexpected error occurred',
  unavailable: 'The service is temporarily unavailable, retry later',
  deadline: 'The request took too long to complete',
  resourceExhausted: 'The renderer is busy, retry later',
  tooManyActiveKeys: (max: number) => `An organization can have at most ${max} active keys; revoke one to create another`,
  tooManyNewKeys: (max: number) => `An organization can create at most ${max} keys a day; retry tomorrow`,
  tooManyWebhooks: (max: number) => `An organization can have at most ${max} webhook endpoints; delete one to create another`,
  webhookTargetRefused: (why: string) => `Webhook endpoint refused: ${why}`,
} as const;

const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  bad_request: 'The request is malformed',
  unauthorized: MESSAGES.invalidKey,
  forbidden: 'Access to this resource is forbidden',
  not_found: MESSAGES.notFound,
  rate_limited: MESSAGES.rateLimited,
  quota_exceeded: MESSAGES.quotaExceeded,
  payload_too_large: 'The request is too large',
  unsupported_media_type: 'The request body must be JSON (Content-Type: application/json)',
  request_timeout: 'The request was not received in time',
  not_acceptable: 'The requested representation is not available',
  method_not_allowed: 'This method is not allowed on this resource',
  headers_too_large: 'The request headers are too large',
  unavailable: MESSAGES.unavailable,
  deadline_exceeded: MESSAGES.deadline,
  resource_exhausted: MESSAGES.resourceExhausted,
  internal: MESSAGES.internal,
};

/**
 * A typed service error. `message` is public; `detail` and `cause` go to the log only.
 * `headers` lets a limiter attach Retry-After and the like without the error mapper knowing why.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly detail?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { detail?: unknown; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message ?? DEFAULT_MESSAGE[code], { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.detail = opts.detail;
    this.headers = opts.headers;
  }

  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }

  get grpcStatus(): GrpcStatus {
    return GRPC_STATUS[this.code];
  }

  toBody(): { error: ErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/** Anything thrown that is not a ServiceError becomes the generic internal error (detail kept for the log). */
export function toServiceError(e: unknown): ServiceError {
  if (isServiceError(e)) return e;
  return new ServiceError('internal', MESSAGES.internal, { cause: e });
}

export function defaultMessage(code: ErrorCode): string {
  return DEFAULT_MESSAGE[code];
}

/**
 * A dependency that cannot be reached now (the database, every renderer): 503 `unavailable` with the
 * few seconds a restart or a failover takes as Retry-After; `cause` is kept for the log.
 */
export function outage(cause?: unknown): ServiceError {
  return new ServiceError('unavailable', undefined, { cause, headers: { 'Retry-After': '5' } });
}
