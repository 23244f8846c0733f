import { STAFF, principalOf } from '../../core/auth.ts'
import type { App } from '../../core/module.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import type { EntriesService } from './entries.service.ts'
import * as S from './entries.schemas.ts'

const tags = ['accounting']

export function entriesRoutes(app: App, entries: EntriesService) {
  app.get('/accounting/entries', {
    schema: {
      operationId: 'listJournalEntries', tags, summary: 'List journal entries',
      description: 'Newest date first by default. Filters: accountId (entries with a line on it), sourceType and sourceId (the entries of one document), currency, from and to (YYYY-MM-DD, inclusive; a malformed date or from after to is 422).',
      querystring: S.EntryListQuery, response: responses({ 200: S.JournalEntryList }, [422]),
    },
    config: { access: { roles: STAFF } },
  }, async (req) => entries.list(principalOf(req).organizationId, req.query))

  app.get('/accounting/entries/:id', {
    schema: {
      operationId: 'getJournalEntry', tags, summary: 'Get a journal entry',
      description: 'An entry with its lines, what it reverses and what reversed it.',
      params: IdParams, response: responses({ 200: S.JournalEntry }, [404]),
    },
    config: { access: { roles: STAFF } },
  }, async (req) => entries.get(principalOf(req).organizationId, req.params.id))

  app.post('/accounting/entries', {
    schema: {
      operationId: 'createJournalEntry', tags, summary: 'Post a manual journal entry',
      description: 'Posts a manual entry (source.type manual, source.id the credential that posted it): 2 to 100 lines, each with exactly one of debit and credit above 0, the debits equal to the credits, every account of the organization; otherwise 422 VALIDATION_FAILED. A date on or before the lock date is 422 PERIOD_LOCKED. Entries are never changed: correct one with a reversal.',
      body: S.CreateEntryBody, response: responses({ 201: S.JournalEntry }, [422]),
    },
    config: { access: { roles: STAFF } },
  }, async (req, reply) => {
    const p = principalOf(req)
    return reply.status(201).send(await entries.createManual(p.organizationId, p.id, req.body))
  })

  app.post('/accounting/entries/:id/reverse', {
    schema: {
      operationId: 'reverseJournalEntry', tags, summary: 'Reverse a journal entry',
      description: "Posts a new entry with every line's debit and credit swapped, dated date (default today, UTC), its reverses set and the original's reversedBy. An entry is reversed once: a second reversal is 409. The original may lie in a locked period; a reversal dated on or before the lock date is 422 PERIOD_LOCKED.",
      params: IdParams, body: S.ReverseEntryBody, response: responses({ 201: S.JournalEntry }, [404, 409, 422]),
    },
    config: { access: { roles: STAFF } },
  }, async (req, reply) => reply.status(201).send(await entries.reverse(principalOf(req).organizationId, req.params.id, req.body ?? {})))
}
