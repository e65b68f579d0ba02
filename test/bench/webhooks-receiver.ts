/**
 * The webhook benchmark's receiver, in its own process (test/bench/webhooks.bench.ts forks it) so
 * that arrival times are stamped by an event loop the server under test does not share. Answers
 * 200 at once; records each delivery's id, event time and arrival time; on the message 'dump'
 * sends them back over IPC. Also serves /baseline for the bare-POST baseline.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Arrival { eventAt: number; at: number; n: number }
const arrivals = new Map<string, Arrival>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    res.writeHead(200).end();
    if (req.url !== '/hook') return;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string; timestamp: string; event: string };
    if (body.event === 'webhook_test') return;
    const seen = arrivals.get(body.eventId);
    if (seen) seen.n++;
    else arrivals.set(body.eventId, { eventAt: Date.parse(body.timestamp), at, n: 1 });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (m) => {
  if (m === 'dump') process.send?.({ arrivals: [...arrivals.entries()] });
  if (m === 'stop') server.close(() => process.exit(0));
});
