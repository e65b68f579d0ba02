-- Media bytes written to the MediaStore before the transaction that references them (service-
-- spec.md, Conversations: media). A row is written (and committed) before the bytes are stored
-- and deleted in the same transaction as the media message, so a row that outlives its request
-- names bytes no message references: the request failed (its cleanup deletes both) or the
-- process died between the write and the commit (the orphan sweep, a pg-boss job, deletes both).
CREATE TABLE media_pending_puts (
  storage_key text PRIMARY KEY,
  created_at  timestamptz NOT NULL
);
CREATE INDEX media_pending_puts_created ON media_pending_puts (created_at);
