import { z } from 'zod';

/**
 * What a name people read (an organisation's, a key's, a catalog entry's) must not hold: C0 and C1
 * control characters and DEL (a terminal running `npm run admin` would act on an escape sequence),
 * the bidirectional embeddings, overrides and isolates (they reorder the text shown after them), and
 * unpaired surrogates (not text; JSON encoders and databases disagree on them).
 */
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True where `s` holds a character UNSHOWABLE names. */
export function hasUnshowable(s: string): boolean {
  return UNSHOWABLE.test(s);
}

/** A name: trimmed, 1 to `max` characters, none of them unshowable. */
export function displayName(max: number) {
  return z.string().trim().min(1).max(max).refine((s) => !hasUnshowable(s), 'it must not contain control or text-direction characters');
}
