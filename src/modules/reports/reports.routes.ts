import type { App } from '../../core/module.ts'
import { STAFF, principalOf } from '../../core/auth.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import type { ReportsService } from './reports.service.ts'
import * as S from './reports.schemas.ts'

const tags = ['reports']
const readers = { access: { roles: STAFF } }

export function reportsRoutes(app: App, reports: ReportsService) {
  app.post('/reports', {
    schema: {
      operationId: 'createReportRun', tags, summary: 'Request a report run',
      // The types are those registered when the app starts (ReportsService.registerType), so
      // `type` is not an enum of the schema: one that is not registered is 422 from the service.
      description:
        'Admin and member. Queues an export of the organization\'s data as CSV and answers 201 with the run, pending; a worker of any process runs it in the background ' +
        '(poll GET /reports/{id}) and e-mails the requester when it ends, succeeded or failed. Types: the row exports `invoices`, `stock_moves`, `timesheets` ' +
        '(parameters from and to, YYYY-MM-DD, inclusive UTC days), and `receivables_aging`, `payables_aging`, `stock_valuation`, `sales` ' +
        '(the parameters of the GET /analytics report of that name) when the analytics module is loaded, ' +
        '`journal_entries` (from, to) and `trial_balance` (asOf, currency), and the lists `contacts` (search, vendor, contactType) and `products` (search, productType), ' +
        'every record GET /contacts or GET /products lists with those filters, A to Z. ' +
        'An unknown type, a parameter the type does not take, a bad value or from after to: 422. ' +
        'Limits per organization: at most 2 of its runs run at once (the others stay pending and run later; other organizations\' runs are not held back), ' +
        'and at most 20 may be pending: past that, 429 QUEUE_FULL with Retry-After (request more once some have run).',
      body: S.CreateReportBody, response: responses({ 201: S.ReportRun }, [422]),
    },
    config: readers,
  }, async (req, reply) => reply.status(201).send(await reports.create(principalOf(req), req.body)))

  app.get('/reports', {
    schema: {
      operationId: 'listReportRuns', tags, summary: 'List report runs',
      description: 'Admin and member. The organization\'s runs, newest first (sortOrder asc: oldest first). Filters: status, type.',
      querystring: S.ReportListQuery, response: responses({ 200: S.ReportRunList }),
    },
    config: readers,
  }, async (req) => reports.list(principalOf(req), req.query))

  app.get('/reports/:id', {
    schema: {
      operationId: 'getReportRun', tags, summary: 'Get a report run',
      description: 'Admin and member. status pending, running, succeeded or failed; rows and file once succeeded (file null again after its 30 days); error once failed.',
      params: IdParams, response: responses({ 200: S.ReportRun }, [404]),
    },
    config: readers,
  }, async (req) => reports.get(principalOf(req), req.params.id))

  app.get('/reports/:id/file', {
    schema: {
      operationId: 'getReportRunFile', tags, summary: 'Download the CSV of a report run',
      description: 'Admin and member. text/csv: a header row, then one line per row; money in decimal major units (1234.50). ' +
        "A text cell that begins with =, +, -, @, a tab or a carriage return is written with a leading ' (it cannot run as a spreadsheet formula); number columns are written as they are (-12.50). " +
        '409 unless the run succeeded; 410 once the file is past its 30 days.',
      params: IdParams, response: responses({ 200: S.CsvFile }, [404, 409, 410]),
    },
    config: readers,
  }, async (req, reply) => {
    const file = await reports.file(principalOf(req), req.params.id)
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-length', file.size)
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .send(file.stream)
  })
}
