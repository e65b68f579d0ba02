/**
 * Server-rendered pages people complete (payment, approval, consoles, linking, sandbox sign-in):
 * Eta templates under api/web/templates, HTML-escaped by default (`<%= %>` escapes; `<%~ %>` is
 * raw and is used only for other rendered templates). Pages work without JavaScript; every page is
 * sent with PAGE_HEADERS (no framing, no inline script, no referrer). GOV.UK Design System form
 * patterns are the model: one thing per page, labels and autocomplete on every field, an error
 * summary that names the field.
 */
import { join } from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';

const eta = new Eta({
  views: join(import.meta.dirname, 'templates'),
  autoEscape: true,
  // Templates are files in the repo; cache compiled functions for the process's life.
  cache: true,
  useWith: false,
});

/** Security headers of every server-rendered page (CSP with no script; no framing; no caching). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
});

/** A field error for the error summary: `field` is the input's id (the summary links to it). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Renders `templates/<name>.eta` with `data` (available as `it` in the template) inside the shared
 * layout. `title` is the page title; `errors` fill the error summary at the top.
 */
export function renderPage(name: string, data: Record<string, unknown> & { title: string; errors?: FieldError[] }): string {
  const body = eta.render(name, data);
  return eta.render('layout', { title: data.title, errors: data.errors ?? [], body });
}

/** Sends a rendered page with the page headers and `status` (default 200). */
export function sendPage(reply: FastifyReply, status: number, html: string, extraHeaders: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ ...PAGE_HEADERS, ...extraHeaders }).send(html);
}
