import assert from 'node:assert/strict'
import { codeToStatus, isErrorCode } from '../../src/core/errors.ts'
import type { Res } from './app.ts'

/** Asserts the status and, for errors, the body of docs/errors.md "The error body" with a machine code of that status. */
export function expectStatus(res: Res, status: number, message?: string | RegExp) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`)
  if (status >= 400) {
    assert.equal(res.body.statusCode, status)
    const code: unknown = res.body.code
    assert.ok(isErrorCode(code) && codeToStatus[code] === status, `code ${code} is not one of status ${status} (docs/errors.md)`)
    assert.equal(typeof res.body.error, 'string')
    assert.ok(typeof res.body.message === 'string' || Array.isArray(res.body.message))
    if (message !== undefined) {
      const text = Array.isArray(res.body.message) ? res.body.message.join('\n') : res.body.message
      if (typeof message === 'string') assert.ok(text.includes(message), `message "${text}" lacks "${message}"`)
      else assert.match(text, message)
    }
  }
  return res.body
}
