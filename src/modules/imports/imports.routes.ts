import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { Multipart } from '@fastify/multipart'
import type { App } from '../../core/module.ts'
import { STAFF, principalOf } from '../../core/auth.ts'
import { AppError, ValidationError } from '../../core/errors.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import { compileValidator } from '../../core/validation.ts'
import type { ImportForm, ImportsService } from './imports.service.ts'
import * as S from './imports.schemas.ts'

const tags = ['imports']
const staff = { access: { roles: STAFF } }

/** A JSON body is checked by its schema; a multipart form (no parsed body) is read and checked by hand. */
// A JSON null body passes here and is refused by the handler.
const jsonOrMultipart: FastifySchemaCompiler<any> = (route) => {
  const check = compileValidator(route)
  if (route.httpPart !== 'body') return check
  const body = (data: unknown) => {
    const multipart = data === undefined || data === null
    const ok = multipart || check(data)
    body.errors = multipart ? null : check.errors
    return ok
  }
  body.errors = null as typeof check.errors
  return body as never
}

type Parts = AsyncIterator<Multipart>
const FIELDS = ['resource', 'mode', 'dryRun'] as const

/** Reads form fields into `form` up to the next file part (answered) or the end; a field twice or unknown: 422. */
async function fieldsUntilFile(parts: Parts, form: ImportForm): Promise<Multipart | undefined> {
  for (;;) {
    const { value: part, done } = await parts.next().catch((err: unknown) => {
      throw multipartError(err)
    })
    if (done) return undefined
    if (part.type === 'file') {
      if (part.fieldname === 'file') return part
      part.file.resume()
      throw new ValidationError(`${part.fieldname} is not allowed`)
    }
    const name = part.fieldname as (typeof FIELDS)[number]
    if (!FIELDS.includes(name)) throw new ValidationError(`${part.fieldname} is not allowed`)
    if (form[name] !== undefined) throw new ValidationError(`${name} is given twice`)
    form[name] = String(part.value)
  }
}

/** An error of the multipart reader: a limit keeps its status (413), the parser's own errors ("Unexpected end of form") are a broken body. */
const multipartError = (err: unknown) =>
  (err as { statusCode?: number }).statusCode ? err : new AppError('MALFORMED_REQUEST', `Malformed multipart body: ${(err as Error).message}`)

async function upload(req: FastifyRequest, imports: ImportsService) {
  const parts = req.parts()[Symbol.asyncIterator]()
  const form: ImportForm = {}
  const file = await fieldsUntilFile(parts, form)
  return imports.createFromFile(principalOf(req), form, file?.type === 'file' ? file.file : undefined, async () => {
    if (await fieldsUntilFile(parts, form)) throw new ValidationError('file is given twice')
    return form
  }, multipartError)
}

export function importsRoutes(app: App, imports: ImportsService) {
  app.post('/imports', {
    schema: {
      operationId: 'createImport', tags, summary: 'Import contacts, products, employees or stock',
      description:
        'Admin and member. Either application/json `{resource, mode, dryRun, rows}` (rows: at most 1,000 objects with the fields of the resource\'s POST) ' +
        'or multipart/form-data with the fields `resource`, `mode`, `dryRun` and `file` (CSV, UTF-8 with or without BOM, a header row of field names, quotes per RFC 4180; ' +
        'at most 10 MiB and 50,000 data rows; an empty cell is an absent field, true/false are booleans, numbers use JSON syntax, money is in cents). ' +
        'resource: contacts, products, employees or stock; mode: insert (default) or upsert (contacts and employees by email, products by sku, stock by sku and locationId). ' +
        'Answers 202 with the import, pending: a worker checks every row with the rules and messages of the single POST or PATCH and writes them all in one transaction, ' +
        'or none when any row fails (status failed, errors by row). A dry run writes nothing and ends with the counts it would have made. ' +
        'A bad resource or mode, a file that is not CSV or too many rows: 422 at once. See docs/imports.md.',
      body: { content: { 'application/json': { schema: S.CreateImportBody }, 'multipart/form-data': { schema: S.ImportUploadForm } } }, response: responses({ 202: S.Import }, [413, 415, 422]),
    },
    validatorCompiler: jsonOrMultipart,
    config: staff,
  }, async (req, reply) => {
    if (!req.isMultipart() && (req.body === null || typeof req.body !== 'object')) throw new ValidationError('value must be object')
    const created = req.isMultipart() ? await upload(req, imports) : await imports.createFromRows(principalOf(req), req.body as S.CreateImport)
    return reply.status(202).send(created)
  })

  app.get('/imports', {
    schema: {
      operationId: 'listImports', tags, summary: 'List imports',
      description: 'Admin and member. The organization\'s imports, newest first (sortOrder asc: oldest first). Filters: status, resource.',
      querystring: S.ImportListQuery, response: responses({ 200: S.ImportList }),
    },
    config: staff,
  }, async (req) => imports.list(principalOf(req), req.query))

  app.get('/imports/:id', {
    schema: {
      operationId: 'getImport', tags, summary: 'Get an import',
      description: 'Admin and member. status pending, running, succeeded or failed; processedRows grows while it runs; created, updated and errors once it ends.',
      params: IdParams, response: responses({ 200: S.Import }, [404]),
    },
    config: staff,
  }, async (req) => imports.get(principalOf(req), req.params.id))
}
