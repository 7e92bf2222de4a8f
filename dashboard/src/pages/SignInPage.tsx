import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, type ApiClient } from '../api.ts';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import type { SignInAnswer } from '../types.ts';

interface Props {
  api: ApiClient;
  reason: string | null;
  signedIn: boolean;
  onSignedIn: () => Promise<void>;
}

/** Takes the token out of `#token=…`, then removes the fragment so that it stays out of history. */
function takeLinkToken(): string | null {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = params.get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return token && token.length > 0 ? token : null;
}

function signInMessage(e: unknown): string {
  if (e instanceof ApiError && e.status === 401) return e.message;
  return describeError(e);
}

export function SignInPage({ api, reason, signedIn, onSignedIn }: Props) {
  const [linkState, setLinkState] = useState<'none' | 'working' | 'failed'>('none');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const started = useRef(false);

  function spendLink() {
    const token = takeLinkToken();
    if (!token) return;
    setError(null);
    setLinkState('working');
    api
      .send<SignInAnswer>('POST', '/sign-in/link', { token })
      .then(async (a) => {
        api.setCsrfToken(a.csrf_token);
        await onSignedIn();
      })
      .catch((e: unknown) => {
        setLinkState('failed');
        setError(
          e instanceof ApiError && e.status === 401
            ? 'This sign-in link is not valid: it may have expired or been used already. Ask your administrator for a new link, or sign in with your password.'
            : signInMessage(e),
        );
      });
  }

  useEffect(() => {
    // a link opened while this page is already open changes only the fragment: no new page load
    addEventListener('hashchange', spendLink);
    if (!started.current) {
      started.current = true;
      spendLink();
    }
    return () => removeEventListener('hashchange', spendLink);
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const a = await api.send<SignInAnswer>('POST', '/sign-in/password', { email: email.trim(), password });
      api.setCsrfToken(a.csrf_token);
      setPassword('');
      await onSignedIn();
    } catch (err) {
      setError(signInMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="narrow">
      <PageHeading title="Sign in">Sign in</PageHeading>
      {/* why the last session ended, until a new attempt has its own answer (a ban says so itself) */}
      {reason && linkState === 'none' && !error && <Notice kind="info">{reason}</Notice>}
      {linkState === 'working' && <Notice kind="info">Signing you in with your link…</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {signedIn && linkState === 'none' && (
        <Notice kind="info">
          You are signed in. Go to your <Link to="contract">contract</Link>.
        </Notice>
      )}
      <p>
        Use the sign-in link your administrator sent you, or your email address and password if you have set
        one.
      </p>
      <form class="card form" onSubmit={submit} aria-labelledby="password-sign-in">
        <h2 id="password-sign-in">Sign in with a password</h2>
        <TextField id="sign-in-email" label="Email address" name="email" type="email" autocomplete="username" required value={email} onValue={setEmail} />
        <TextField
          id="sign-in-password"
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
        />
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
