/**
 * Outgoing email (issue 38, item 8). Adapters: SMTP through nodemailer (SMTP_URL), and on the
 * embedded defaults a file outbox under DATA_DIR/mail (engine/adapters/mailer.*.ts).
 */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body (no HTML mail: nothing to escape, nothing a client renders as a page). */
  text: string;
  /** The one link the message is about; the file outbox also writes it to the log. */
  link?: string | undefined;
}

export interface Mailer {
  /** Sends (or, for the file outbox, writes) one message. Throws when it cannot be handed over. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
