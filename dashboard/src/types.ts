// Shapes of the gateway's dashboard answers (the API is described in docs/dashboard.md).

export interface Member {
  id: string;
  email: string;
  has_password: boolean;
}

export interface Session {
  member: Member;
  organization: { id: string; name: string };
  csrf_token: string;
}

export interface SignInAnswer {
  member: Member;
  csrf_token: string;
}

export interface Category {
  id: string;
  slug: string;
  name: string;
}

export interface Contract {
  active: boolean;
  categories: Category[];
  allowed_formats: string[];
  rpm_limit: number;
  monthly_quota: number;
  /** Calls sold apart, e.g. "spin". */
  features: string[];
}

export interface ContractAnswer {
  organization: { id: string; name: string };
  /** null while the operator has given the organisation no contract (every /v1 call is then refused). */
  contract: Contract | null;
  usage: { month: string; requests: number; remaining: number };
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedKey {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  key: string;
}

export type UsageKind = 'catalog' | 'search' | 'image' | 'batch' | 'spin' | 'account';

export interface UsageAnswer {
  month: string;
  monthly_quota: number;
  requests: number;
  remaining: number;
  days: { date: string; requests: number }[];
  by_key: { key_id: string | null; name: string | null; prefix: string | null; requests: number }[];
  by_kind: { kind: UsageKind | string; requests: number }[];
}

export interface NamedRef {
  id: string;
  slug: string;
  name: string;
}

export interface Vehicle {
  id: string;
  make: string;
  model: string;
  year: number;
  variant: string | null;
  category: string;
  make_slug: string;
  model_slug: string;
  variant_slug: string | null;
}

export interface Warning {
  code: string;
  message: string;
}

export interface ImageAnswer {
  vehicle: Vehicle;
  view: string;
  options: Record<string, unknown>;
  image_url: string;
  expires_at: string;
  warnings: Warning[];
}

export const EVENT_TYPES = ['quota.threshold', 'key.created', 'key.revoked', 'contract.updated', 'access.disabled', 'access.restored'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface Webhook {
  id: string;
  url: string;
  /** Empty: every type. */
  events: EventType[];
  created_at: string;
  /** Set when the receiver answered 410 Gone: nothing more is sent to it. */
  disabled_at: string | null;
  disabled_reason: string | null;
}

export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface WebhookDelivery {
  event_id: string;
  type: EventType;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}
