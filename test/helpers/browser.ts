/**
 * A real headless browser for page tests (STYLE.md 8; issue 35, item 5): playwright-core driving
 * Debian's /usr/bin/chromium (no browser download; `.ci/run` installs the package when missing).
 * Each launch gets a fresh user-data-dir, removed on close. Tests skip, saying why, only when
 * chromium is absent: `describe.skipIf(!chromiumAvailable())(withBrowserNote('…'), …)`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for a quiet, offline, deterministic headless Chromium in a container (CI runs as root). */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** The suite title, with the reason when it is skipped (vitest prints the title of a skipped suite). */
export function withBrowserNote(title: string): string {
  return chromiumAvailable() ? title : `${title} [SKIPPED: ${CHROMIUM_PATH} not found; apt-get install -y chromium]`;
}

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium headless with a fresh profile. `javaScriptEnabled: false` proves a page works without scripts. */
export async function launchBrowser(opts: { javaScriptEnabled?: boolean } = {}): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'cb-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      javaScriptEnabled: opts.javaScriptEnabled ?? true,
      timeout: 60_000,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
