/** Retries `check` every `everyMs` until it passes or `ms` have gone by (then its last failure is thrown): for what settles in the background. */
export async function eventually(check: () => Promise<void>, ms = 15_000, everyMs = 200): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}
