import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Mailer, MailMessage } from '../ports/mailer.ts';

/**
 * The embedded default Mailer: one JSON file per message under `dir` (DATA_DIR/mail), named so
 * that `ls` lists them oldest first, and the message's link written to the log, so that a
 * developer without a mail server can still follow a verification or reset link. Files are
 * 0600: the links in them are single-use secrets.
 */
export function createFileMailer(dir: string, from: string, log: Logger): Mailer {
  return {
    async send(m: MailMessage): Promise<void> {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const at = new Date();
      const file = join(dir, `${at.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.json`);
      await writeFile(file, `${JSON.stringify({ date: at.toISOString(), from, to: m.to, subject: m.subject, text: m.text, link: m.link ?? null }, null, 2)}\n`, { mode: 0o600 });
      log.info({ to: m.to, subject: m.subject, link: m.link, file }, 'mail written to the outbox (no SMTP_URL set)');
    },
    async close(): Promise<void> {},
  };
}
