-- Media in conversations (service-spec.md, Conversations: POST/GET …/media; Message types photo,
-- video, file). One row per media message. A row sent as `data` or `url` is written `stored`
-- with its message; the upload-URL fallback writes it `pending` with the hash of a single-use
-- token valid about 60 s, and the PUT moves it to `used` in one conditional UPDATE (so a second
-- PUT, even a concurrent one, is refused), then to `stored` with the message, or `failed`.
CREATE TABLE media_objects (
  message_id        text PRIMARY KEY,
  conversation_id   text NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  account_id        text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'used', 'failed', 'stored')),
  media_type        text NOT NULL CHECK (media_type IN ('photo', 'video', 'file')),
  -- The declared content type; once stored, the sniffed one (they must agree).
  content_type      text NOT NULL,
  file_name         text,
  byte_size         integer,
  sha256            text,
  -- Where the MediaStore keeps the bytes (a file under DATA_DIR/media, or an S3 object key).
  storage_key       text,
  upload_ref        text UNIQUE,
  upload_token_hash text UNIQUE,
  upload_expires_at timestamptz,
  created_at        timestamptz NOT NULL,
  stored_at         timestamptz
);
CREATE INDEX media_objects_conversation ON media_objects (conversation_id);
