/**
 * Loopback ports for test servers whose origin must be known before they are built (the OAuth
 * issuer, a PostgreSQL cluster). A port the kernel hands out for listen(0) is one of its ephemeral
 * ports, which it also gives the other test workers' outgoing connections, so between choosing it
 * and listening on it another process could take it (CI failed once so, EADDRINUSE, 2026-11-23).
 * These come from below the ephemeral range instead, and onFreePort starts again on another port
 * if one was taken all the same.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest ephemeral port (ip_local_port_range), 32768 where it cannot be read. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : null));
    });
  });
}

/** A loopback port nothing listens on now, below the ephemeral range when one is free there. */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, Math.min(20000, high - 4096));
  for (let i = 0; i < 64; i++) {
    const got = await tryListen(low + Math.floor(Math.random() * (high - low)));
    if (got !== null) return got;
  }
  const any = await tryListen(0);
  if (any === null) throw new Error('no free loopback port');
  return any;
}

/** `start(port)` on a free port, again on another one (up to `attempts`) if it fails with EADDRINUSE; `start` cleans up after itself. */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || i >= attempts) throw e;
    }
  }
}
