/**
 * The provider-reference files of a generated in-network file's remote references
 * (in-network-gen.ts `remoteBase`), served by a local HTTP server on 127.0.0.1 for the ingest
 * benchmark (issue 37, item 5): `/provider-references/<8-digit id>.json` answers a small
 * deterministic TiC provider-reference file (one or two groups of a few NPIs, derived from the id);
 * anything else 404. SYNTHETIC DATA.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RefServer {
  /** The `remoteBase` to generate with: http://127.0.0.1:<port>/provider-references/ */
  base: string;
  /** Requests answered so far. */
  requests(): number;
  /** Stops listening: from then on the port refuses connections (the unreachable case). */
  close(): Promise<void>;
}

/** One reference file's JSON for `id`: same id, same bytes. */
export function referenceFile(id: number): string {
  const groups = 1 + (id % 2);
  const parts: string[] = [];
  for (let g = 0; g < groups; g++) {
    const n = 1 + ((id * 7 + g) % 9);
    const npis = Array.from({ length: n }, (_, k) => 1_500_000_000 + ((id * 9973 + g * 101 + k * 7919) % 400_000_000));
    parts.push(`{"npi":[${npis.join(',')}],"tin":{"type":"ein","value":"${String(10 + (id % 89)).padStart(2, '0')}-${String(id % 10_000_000).padStart(7, '0')}"}}`);
  }
  return `{"version":"1.0.0","provider_groups":[${parts.join(',')}]}`;
}

export async function serveReferences(): Promise<RefServer> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    const m = /^\/provider-references\/(\d{8})\.json$/.exec(req.url ?? '');
    if (!m) { res.writeHead(404).end(); return; }
    n++;
    const body = referenceFile(Number(m[1]));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}/provider-references/`,
    requests: () => n,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
