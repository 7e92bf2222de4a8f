import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, never a downloaded browser, headless and offline, as every browser test runs it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
