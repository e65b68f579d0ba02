import { describe, expect, it } from 'vitest';
import { PAGE_HEADERS, renderPage } from '../../api/web/render.ts';

describe('server-rendered pages', () => {
  it('escapes interpolated values by default and lists field errors in the summary', () => {
    // The layout is the only shipped template so far; render a body through it via the title.
    const html = renderPage('layout', { title: '<script>alert(1)</script>', errors: [{ field: 'cardNumber', message: 'Enter a "valid" card <number>' }], body: '' });
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('href="#cardNumber"');
    expect(html).toContain('Enter a &quot;valid&quot; card &lt;number&gt;');
    expect(html).toContain('<title>Error: ');
  });

  it('pages forbid framing and scripts', () => {
    expect(PAGE_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(PAGE_HEADERS['content-security-policy']).toContain("default-src 'none'");
    expect(PAGE_HEADERS['x-frame-options']).toBe('DENY');
  });
});
