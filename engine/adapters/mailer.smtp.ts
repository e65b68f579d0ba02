import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from '../ports/mailer.ts';

/**
 * The Mailer port over SMTP (nodemailer). `url` is an smtp:// or smtps:// URL with optional
 * credentials (`smtp://user:pass@host:587`); nodemailer upgrades with STARTTLS when offered.
 */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(m: MailMessage): Promise<void> {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
