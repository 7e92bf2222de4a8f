import { ServiceError } from '../shared/errors.ts';

/**
 * Features a contract may include beyond the spec's calls (docs/api.md, "Contract features"): sold
 * apart, so a call that needs one answers 403 without it. The admin contract PUT takes them by name.
 */
export const CONTRACT_FEATURES = ['spin'] as const;
export type ContractFeature = (typeof CONTRACT_FEATURES)[number];

export function isContractFeature(s: string): s is ContractFeature {
  return (CONTRACT_FEATURES as readonly string[]).includes(s);
}

/** The names as given, once each and in catalogue order; 400 naming every unknown one. */
export function parseContractFeatures(names: readonly string[]): ContractFeature[] {
  const unknown = [...new Set(names.filter((n) => !isContractFeature(n)))];
  if (unknown.length > 0) {
    throw new ServiceError('bad_request', `Unknown features: ${unknown.join(', ')} (known: ${CONTRACT_FEATURES.join(', ')})`);
  }
  return CONTRACT_FEATURES.filter((f) => names.includes(f));
}
