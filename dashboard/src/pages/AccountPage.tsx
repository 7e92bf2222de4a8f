import { useState } from 'preact/hooks';
import type { ApiClient } from '../api.ts';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import type { Session } from '../types.ts';

const MIN_PASSWORD = 12;

interface Props {
  api: ApiClient;
  session: Session;
  onPasswordSet: () => void;
  onSignedOut: () => void;
}

export function AccountPage({ api, session, onPasswordSet, onSignedOut }: Props) {
  const has = session.member.has_password;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(null);

  async function savePassword(e: Event) {
    e.preventDefault();
    setError(null);
    setDone(false);
    // characters as the server counts them (NFKC, code points): six emoji are six characters, not twelve
    if ([...next.normalize('NFKC')].length < MIN_PASSWORD) return setProblem(`The new password needs at least ${MIN_PASSWORD} characters.`);
    if (next !== again) return setProblem('The two new passwords differ.');
    setProblem(null);
    setBusy(true);
    try {
      await api.send('PUT', '/password', has ? { password: next, current_password: current } : { password: next });
      setCurrent('');
      setNext('');
      setAgain('');
      setDone(true);
      onPasswordSet();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function signOut() {
    setSignOutError(null);
    try {
      await api.send('POST', '/sign-out');
      onSignedOut();
    } catch (err) {
      setSignOutError(err);
    }
  }

  return (
    <>
      <PageHeading title="Account">Account</PageHeading>
      <dl class="figures">
        <div class="figure">
          <dt>Email address</dt>
          <dd class="small-figure">{session.member.email}</dd>
        </div>
        <div class="figure">
          <dt>Organisation</dt>
          <dd class="small-figure">{session.organization.name}</dd>
        </div>
        <div class="figure">
          <dt>Password</dt>
          <dd class="small-figure">{has ? 'Set' : 'Not set (sign-in links only)'}</dd>
        </div>
      </dl>
      <div class="two-col">
        <form class="card form" onSubmit={savePassword} aria-labelledby="pw-title" noValidate>
          <h2 id="pw-title">{has ? 'Change your password' : 'Set a password'}</h2>
          <p class="hint">
            With a password you can sign in without asking for a link. At least {MIN_PASSWORD} characters; a passphrase
            of a few words is easy to remember and hard to guess.
          </p>
          {has && (
            <TextField id="pw-current" label="Current password" type="password" autocomplete="current-password" required value={current} onValue={setCurrent} />
          )}
          <TextField
            id="pw-new"
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            minLength={MIN_PASSWORD}
            value={next}
            onValue={setNext}
          />
          <TextField id="pw-again" label="New password again" type="password" autocomplete="new-password" required value={again} onValue={setAgain} />
          {problem && <Notice kind="error">{problem}</Notice>}
          <ErrorNotice error={error} />
          {done && <Notice kind="success">Your password is saved.</Notice>}
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? 'Saving…' : has ? 'Change password' : 'Set password'}
          </button>
        </form>
        <section class="card" aria-labelledby="sign-out-title">
          <h2 id="sign-out-title">Sign out</h2>
          <p>Ends this session on this device. Your keys keep working.</p>
          <ErrorNotice error={signOutError} />
          <button type="button" class="button secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </section>
      </div>
    </>
  );
}
