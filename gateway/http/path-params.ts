import type { Router } from 'express';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';

// Path parameters checked against their documented alphabets before any handler or query runs.

/** Slugs are lower-case a-z, 0-9 and single hyphens (docs/api.md); the lookup is case-insensitive. */
export const SLUG_RE = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;
/** The nine view ids and any other lower-case word with underscores (unknown ones are 404 later). */
export const VIEW_RE = /^[a-z][a-z_]{0,31}$/;
/** Ids are a short type prefix and base64url (`org_cc5nMg2hbsK6ZE-_`, `veh_…`). */
export const ID_RE = /^[a-z]{2,4}_[A-Za-z0-9_-]{1,64}$/;
/** `/{year}/{x}`: x is a variant slug or a view id. */
export const SEGMENT_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MAX_SEGMENT = 100;

/**
 * Refuses a path parameter outside its alphabet with the generic 404, before the handler (and any
 * database query) runs. A NUL byte, a quote or a percent-encoded oddity never reaches SQL.
 */
export function validateParams(router: Router, params: Record<string, RegExp | { re: RegExp; message: string }>): void {
  for (const [name, rule] of Object.entries(params)) {
    // a message of the parameter's own where the docs give one (a year outside the slug alphabet: "Year not found")
    const { re, message } = rule instanceof RegExp ? { re: rule, message: MESSAGES.notFound } : rule;
    router.param(name, (_req, _res, next, value: unknown) => {
      const v = String(value);
      if (v.length === 0 || v.length > MAX_SEGMENT || !re.test(v)) next(new ServiceError('not_found', message));
      else next();
    });
  }
}
