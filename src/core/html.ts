import type { FastifyReply } from 'fastify'

/**
 * The few HTML pages the service itself serves to a person in a browser (the
 * local payment processor's checkout and portal, the confirmation of a
 * support request), and the header of a file download. Pages carry no
 * script; their own Content-Security-Policy allows inline styles only, and
 * forms that post back to this origin (and to `formTargets`).
 */

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const BASE_CSS = `
  body { font: 16px/1.5 system-ui, sans-serif; background: #f4f5f7; color: #1d2330; margin: 0; }
  main { max-width: 32rem; margin: 3rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 2px 12px #0001; }
  h1 { font-size: 1.4rem; margin-top: 0; } .note { color: #5b6272; font-size: .9rem; }
  button { font: inherit; border: 0; border-radius: 8px; padding: .7rem 1.2rem; cursor: pointer; }`

/** A whole page: `title` is escaped here, `body` is HTML its caller escaped; `css` adds rules. */
export function htmlPage(title: string, body: string, css = '') {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${BASE_CSS}${css}
</style></head><body><main>${body}</main></body></html>`
}

/**
 * Sends a page, never cached, with no referrer (a page's address may carry a
 * token) and its own policy: no script, inline styles, images of this origin,
 * forms posting here or to `formTargets` (origins).
 */
export function sendHtml(reply: FastifyReply, page: string, formTargets: readonly string[] = []) {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'; form-action ${["'self'", ...new Set(formTargets)].join(' ')}`
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', csp)
    .send(page)
}

/** RFC 6266 Content-Disposition of a download: an ASCII fallback no quote, backslash or control character can end, and the exact UTF-8 name. */
export function attachmentDisposition(filename: string) {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const utf8 = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`
}
