/** The event catalogue (docs/events.md): every type the service emits, and the one shape they share. */
export const EVENT_TYPES = ['quota.threshold', 'key.created', 'key.revoked', 'contract.updated', 'access.disabled', 'access.restored'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One event as the feed answers it and a webhook carries it. */
export interface EventDto {
  id: string;
  type: EventType;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

/**
 * `evt_` and the sequence number zero-padded to 16 digits: ids sort as strings in the order they
 * were written, so a client may compare them without knowing the format.
 */
const ID_DIGITS = 16;
export const EVENT_ID_RE = /^evt_\d{16}$/;

export function eventId(seq: string | number | bigint): string {
  return `evt_${String(seq).padStart(ID_DIGITS, '0')}`;
}

/** The sequence number of a well-formed id (EVENT_ID_RE), as text for a bigint parameter. */
export function eventSeq(id: string): string {
  return BigInt(id.slice(4)).toString();
}

export interface EventRow {
  seq: string;
  org_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export function toDto(r: EventRow): EventDto {
  return { id: eventId(r.seq), type: r.type as EventType, created_at: r.created_at.toISOString(), organization_id: r.org_id, data: r.data };
}
