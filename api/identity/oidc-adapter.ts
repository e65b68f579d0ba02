import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Db } from '../../engine/ports/db.ts';

/**
 * oidc-provider storage adapter on the Db port (table `oidc_payloads`, migration 001).
 *
 * Only SHA-256 hashes of model ids are stored (issue 2, item 8): for opaque access tokens,
 * refresh tokens, authorization codes, sessions and interactions the id IS the secret the holder
 * presents, so a read of the table (backup, SQL injection elsewhere, a curious operator) yields
 * nothing usable. The `jti` field that oidc-provider repeats inside the payload is removed before
 * storing and restored from the presented id on `find`. Device user codes are hashed too.
 * Client registrations are keyed the same way (lookups are always by the full client_id).
 */
export function hashId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

/** Stands for the model id inside stored payloads (U+2063, never in generated ids). */
const ID_MARK = '\u2063id\u2063';

/** Grant sources that must be redeemed at most once, even under concurrency. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/** A registered client that is never used for a grant is removed after this many days. */
export const UNUSED_CLIENT_DAYS = 30;

/** How often expired rows are pruned, at most (opportunistically, on writes). */
const PRUNE_EVERY_MS = 5 * 60_000;

interface Row extends Record<string, unknown> {
  payload: AdapterPayload | string;
  consumed_at: Date | string | null;
}

/**
 * Returns the adapter class oidc-provider instantiates once per model name. Pruning state lives
 * in this closure (one per provider), not at module level.
 *
 * `secret` seals device codes: the device grant (RFC 8628) looks a DeviceCode up by its user code
 * and then saves it under its id (the device code), which the hash cannot give back. So a
 * DeviceCode row also holds its id encrypted (AES-256-GCM under a key derived from `secret`, the
 * first cookie key): a read of the table alone still yields no usable device code.
 */
export function createOidcAdapter(db: Db, log: Logger, secret = ''): new (name: string) => Adapter {
  let lastPrune = 0;
  const sealKey = createHash('sha256').update(`oidc-device-code:${secret}`).digest();

  function seal(id: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', sealKey, iv);
    const body = Buffer.concat([c.update(id, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
  }

  function unseal(sealed: unknown): string | undefined {
    if (typeof sealed !== 'string') return undefined;
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const d = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  function maybePrune(): void {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    db.query('DELETE FROM oidc_payloads WHERE expires_at < now()').then(
      (r) => { if (r.rowCount > 0) log.debug({ pruned: r.rowCount }, 'pruned expired oidc payloads'); },
      (err: unknown) => { log.warn({ err }, 'pruning expired oidc payloads failed'); },
    );
  }

  function decode(presentedId: string | undefined, row: Row | undefined, userCode?: string): AdapterPayload | undefined {
    if (!row) return undefined;
    let text = typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload);
    const sealed = (JSON.parse(text) as { sealedId?: unknown }).sealedId;
    const id = presentedId ?? unseal(sealed);
    if (id !== undefined) text = text.split(ID_MARK).join(id);
    const payload = JSON.parse(text) as AdapterPayload;
    delete (payload as Record<string, unknown>).sealedId;
    if (userCode !== undefined) payload.userCode = userCode;
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }

  const LIVE = '(expires_at IS NULL OR expires_at > now())';

  return class PgOidcAdapter implements Adapter {
    private readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
      // Neither the id nor the device user code is kept in clear (both are bearer secrets). The
      // id appears inside payloads too (jti, an interaction's returnTo URL, a client's
      // client_id): every occurrence is replaced by a marker and restored from the presented id.
      const { userCode: _userCode, ...rest } = payload;
      if (this.model === 'DeviceCode') (rest as Record<string, unknown>).sealedId = seal(id);
      let text = JSON.stringify(rest);
      if (id.length >= 8) text = text.split(id).join(ID_MARK);
      // Open registration (RFC 7591) lets anyone add clients: a registration that never leads to
      // a grant expires after UNUSED_CLIENT_DAYS; the first grant makes it permanent (below).
      const expiresAt = expiresIn
        ? new Date(Date.now() + expiresIn * 1000)
        : this.model === 'Client' ? new Date(Date.now() + UNUSED_CLIENT_DAYS * 86_400_000) : null;
      await db.query(
        `INSERT INTO oidc_payloads (model, id_hash, payload, grant_id, uid, user_code, expires_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
         ON CONFLICT (model, id_hash) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
        [
          this.model,
          hashId(id),
          text,
          typeof payload.grantId === 'string' ? payload.grantId : null,
          // findByUid is only ever asked of Session (a session's uid is not its cookie value).
          // An Interaction's uid IS its id, so it must not be kept in clear.
          this.model === 'Session' && typeof payload.uid === 'string' ? payload.uid : null,
          typeof payload.userCode === 'string' ? hashId(payload.userCode) : null,
          expiresAt,
        ],
      );
      if (this.model === 'Grant' && typeof payload.clientId === 'string') {
        await db.query(
          `UPDATE oidc_payloads SET expires_at = NULL WHERE model = 'Client' AND id_hash = $1 AND expires_at IS NOT NULL`,
          [hashId(payload.clientId)],
        );
      }
      maybePrune();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const { rows } = await db.query<Row>(
        `SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND id_hash = $2 AND ${LIVE}`,
        [this.model, hashId(id)],
      );
      return decode(id, rows[0]);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const { rows } = await db.query<Row>(
        `SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND user_code = $2 AND ${LIVE}`,
        [this.model, hashId(userCode)],
      );
      // The device code (id) is not recoverable from its hash: it is unsealed from the payload.
      return decode(undefined, rows[0], userCode);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const { rows } = await db.query<Row>(
        `SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND uid = $2 AND ${LIVE}`,
        [this.model, uid],
      );
      return decode(undefined, rows[0]);
    }

    /**
     * Marks a code or refresh token used. Atomic: oidc-provider checks `consumed` and then calls
     * this, so two concurrent redemptions could both pass its check; only the one whose UPDATE
     * flips consumed_at wins, the other fails with invalid_grant (single-use, OAuth 2.1 §4.1.3).
     */
    async consume(id: string): Promise<void> {
      const r = await db.query(
        'UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id_hash = $2 AND consumed_at IS NULL',
        [this.model, hashId(id)],
      );
      if (r.rowCount === 0 && SINGLE_USE.has(this.model)) throw new errors.InvalidGrant(`${this.model} already used`);
    }

    async destroy(id: string): Promise<void> {
      await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND id_hash = $2', [this.model, hashId(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
    }
  };
}
