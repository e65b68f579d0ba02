import type { FastifyInstance } from 'fastify';
import type { Db } from '../../engine/ports/db.ts';
import { listMigrations } from '../../engine/storage/migrate.ts';
import { safeErr } from '../logging.ts';

/**
 * GET /healthz: the process is alive (no dependencies checked, so a slow database does not get
 * the process restarted). GET /readyz: the database answers and every migration is applied, and
 * the server is not draining; 503 with a JSON body otherwise (load balancers route on it).
 */
export function registerHealthRoutes(app: FastifyInstance, db: Db, isDraining: () => boolean): void {
  const latest = Math.max(0, ...listMigrations().map((m) => m.version));
  app.get('/healthz', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    if (isDraining()) return reply.code(503).send({ status: 'draining', error: 'not_ready', reason: 'The server is shutting down.', needsAuth: false });
    try {
      const r = await db.query<{ v: number | null }>('SELECT max(version)::int AS v FROM schema_migrations');
      const applied = r.rows[0]?.v ?? 0;
      if (applied < latest) {
        return reply.code(503).send({ status: 'migrations_pending', error: 'not_ready', reason: `Database schema is at ${applied}, expected ${latest}.`, needsAuth: false });
      }
      return reply.send({ status: 'ready', database: db.kind, schemaVersion: applied });
    } catch (e) {
      req.log.warn({ err: safeErr(e) }, 'readiness check failed');
      return reply.code(503).send({ status: 'database_unavailable', error: 'not_ready', reason: 'The database is not reachable.', needsAuth: false });
    }
  });
}
