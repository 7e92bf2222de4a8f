// The playground's set-up: the contract (a free dashboard call), then the colours (a counted /v1 call).
// Without a contract, or with an inactive one, every /v1 call is refused: the page says so once
// instead of letting each step fail.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import type { ContractAnswer } from '../types.ts';
import { catalog, type NamedColour } from './catalog.ts';

export type SetupState = 'loading' | 'ready' | 'no-contract' | 'inactive' | 'failed';

export interface PlaygroundSetup {
  state: SetupState;
  error: unknown;
  colours: NamedColour[];
  /** The formats the contract allows, in its order. */
  formats: string[];
  /** How many times the set-up was asked again (0: the first load). */
  tries: number;
  retry: () => void;
}

export function usePlaygroundSetup(api: ApiClient): PlaygroundSetup {
  const [state, setState] = useState<SetupState>('loading');
  const [error, setError] = useState<unknown>(null);
  const [colours, setColours] = useState<NamedColour[]>([]);
  const [formats, setFormats] = useState<string[]>([]);
  const [tries, setTries] = useState(0);

  useEffect(() => {
    let live = true;
    setState('loading');
    setError(null);
    (async (): Promise<SetupState> => {
      const { contract } = await api.get<ContractAnswer>('/contract');
      if (contract === null) return 'no-contract';
      if (!contract.active) return 'inactive';
      const c = await catalog.colors(api);
      if (live) {
        setColours(c);
        setFormats(contract.allowed_formats);
      }
      return 'ready';
    })().then(
      (s) => {
        if (live) setState(s);
      },
      (e: unknown) => {
        if (!live) return;
        setError(e);
        setState('failed');
      },
    );
    return () => {
      live = false;
    };
  }, [api, tries]);

  const retry = useCallback(() => setTries((n) => n + 1), []);
  return { state, error, colours, formats, tries, retry };
}
