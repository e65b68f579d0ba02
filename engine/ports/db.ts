/**
 * Transactional storage port (PostgreSQL dialect). Adapters: PGlite (embedded, default) and
 * node-postgres (DATABASE_URL). Parameters are `$1, $2, …`; never interpolate values into SQL.
 */
export interface Db {
  readonly kind: 'pglite' | 'postgres';
  query<T extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[]; rowCount: number }>;
  /** Runs `fn` in one transaction; rolls back if it throws. Nested calls reuse the transaction. */
  transaction<R>(fn: (tx: Db) => Promise<R>): Promise<R>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * LISTEN on `channel` (a plain lower-case identifier, `[a-z0-9_]`, at most 63 bytes) for the life
   * of the returned unsubscribe. Root handles only (not inside a transaction). PGlite: the
   * instance's own listen; PostgreSQL: one dedicated connection that reconnects and re-LISTENs after
   * an error, then calls `onReconnect` (notifications sent meanwhile were missed: re-read).
   */
  listen?(channel: string, fn: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
