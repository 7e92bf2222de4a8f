import type { z } from 'zod';
import { ServiceError } from '../../shared/errors.ts';

/**
 * A request body checked against its schema: the data, or 400 "Invalid <field>: <reason>" naming the
 * first problem in plain words. zod's own texts ("Too small: expected string to have >=1
 * characters") are written for developers; these reach people through the admin CLI and the dashboard.
 */
export function parseBody<T>(schema: z.ZodType<T>, data: unknown): T {
  const r = schema.safeParse(data ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new ServiceError('bad_request', `Invalid ${field}: ${reason(issue as unknown as Issue, valueAt(data, issue.path))}`);
}

interface Issue {
  code: string;
  message: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  expected?: string;
  values?: unknown[];
  keys?: string[];
  format?: string;
}

const UNITS: Record<string, [string, string]> = { string: ['character', 'characters'], array: ['item', 'items'], set: ['item', 'items'] };

function count(n: number | bigint, origin: string | undefined): string {
  const unit = origin ? UNITS[origin] : undefined;
  return unit ? `${n} ${Number(n) === 1 ? unit[0] : unit[1]}` : String(n);
}

function reason(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'it is required';
      return issue.expected === 'array' ? 'it must be a list' : `it must be ${article(issue.expected ?? 'value')}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'it must not be empty';
      return `it must be at least ${count(issue.minimum ?? 0, issue.origin)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
    case 'too_big':
      return `it must be at most ${count(issue.maximum ?? 0, issue.origin)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
    case 'invalid_value':
      return `use one of ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field${(issue.keys ?? []).length === 1 ? '' : 's'} ${(issue.keys ?? []).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'email' ? 'it is not an email address' : issue.message;
    default:
      // our own refinements and regex messages are already written for people
      return issue.message;
  }
}

function article(type: string): string {
  const word = type === 'int' ? 'whole number' : type;
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}
