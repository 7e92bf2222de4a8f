/**
 * The one set-id rule (docs/asset-format.md): lower-case letters, digits, `-` and `_`, starting with a
 * letter or digit, at most 64 characters. A set's folder is named after its id, and the id travels in
 * catalog rows, image URLs and cache keys, so every part checks it the same way.
 */
export const SET_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const SET_ID_RULE = 'lower-case letters, digits, "-" and "_", starting with a letter or digit, at most 64';

export function isSetId(id: string): boolean {
  return SET_ID_RE.test(id);
}

