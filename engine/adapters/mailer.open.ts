import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import type { Mailer } from '../ports/mailer.ts';
import { createFileMailer } from './mailer.file.ts';
import { createSmtpMailer } from './mailer.smtp.ts';

/** The configured Mailer: SMTP when SMTP_URL is set, otherwise the file outbox in DATA_DIR/mail. */
export function openMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, log: Logger): Mailer {
  return config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : createFileMailer(join(config.dataDir, 'mail'), config.mailFrom, log);
}
