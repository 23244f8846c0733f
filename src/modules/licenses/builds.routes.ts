import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { App } from '../../core/module.ts'
import { ADMIN, BUYERS, STAFF_AND_SUPPORT, principalOf } from '../../core/auth.ts'
import { AppError } from '../../core/errors.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import { attachmentDisposition } from '../../core/html.ts'
import { compileValidator } from '../../core/validation.ts'
import type { BuildUpload, BuildsService } from './builds.service.ts'
import * as S from './licenses.schemas.ts'

const tags = ['licenses']

/** The multipart form is documented by its schema but read and checked by hand (files are not JSON). */
const multipartValidator: FastifySchemaCompiler<any> = (route) => (route.httpPart === 'body' ? () => true : compileValidator(route))

/** A file name as stored: no path separators nor control characters (NUL cannot be stored), at most 200 characters, never half a surrogate pair. */
const safeFilename = (name: string) => Array.from(name.replace(/[\\/\u0000-\u001f\u007f]/g, '_')).slice(0, 200).join('')

async function readBuildForm(req: FastifyRequest): Promise<BuildUpload> {
  const form: BuildUpload = { unknownFields: [] }
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const content = await part.toBuffer()
        if (part.fieldname === 'file' && !form.file) form.file = { filename: safeFilename(part.filename), content }
        else form.unknownFields.push(part.fieldname)
      } else if (part.fieldname === 'version' && form.version === undefined) form.version = String(part.value)
      else form.unknownFields.push(part.fieldname)
    }
  } catch (err) {
    // Limits (413) and content-type errors carry a status; the parser's own errors
    // ("Unexpected end of form", "Malformed part header", no boundary) are a broken body.
    if ((err as { statusCode?: number }).statusCode) throw err
    throw new AppError('MALFORMED_REQUEST', `Malformed multipart body: ${(err as Error).message}`)
  }
  return form
}


export function buildsRoutes(app: App, builds: BuildsService) {
  app.post('/products/:id/builds', {
    schema: {
      operationId: 'uploadBuild', tags, summary: 'Upload a module build (ZIP)', consumes: ['multipart/form-data'], params: IdParams, body: S.BuildUploadForm,
      description: "multipart/form-data with `version` (<erp_major>.0.<module_major>.<minor>.<patch> for the product's ERP version, e.g. 19.0.2.0.0) and `file` (a ZIP, at most 50 MiB). The same version twice: 409.",
      response: responses({ 201: S.Build }, [404, 409, 413, 415, 422]),
    },
    validatorCompiler: multipartValidator,
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => {
    const p = principalOf(req)
    await builds.checkProduct(p, req.params.id)
    if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data')
    return reply.status(201).send(await builds.upload(p, req.params.id, await readBuildForm(req)))
  })

  app.get('/products/:id/builds', {
    schema: { operationId: 'listProductBuilds', tags, summary: 'List the builds of a product', description: 'Every build uploaded for the product; sortBy createdAt or version.', params: IdParams, querystring: S.ProductBuildsQuery, response: responses({ 200: S.BuildList }, [404]) },
    config: { access: { roles: STAFF_AND_SUPPORT } },
  }, async (req) => builds.listForProduct(principalOf(req), req.params.id, req.query))

  app.get('/portal/downloads', {
    schema: {
      operationId: 'listDownloads', tags, summary: 'Builds the caller may download',
      description: "Builds of the products the caller holds an active license for, only for each license's ERP major version.",
      querystring: S.BuildListQuery, response: responses({ 200: S.BuildList }),
    },
    config: { access: { roles: BUYERS } },
  }, async (req) => builds.entitled(principalOf(req), req.query))

  app.get('/portal/downloads/:id/file', {
    schema: {
      operationId: 'downloadBuild', tags, summary: 'Download a build', description: 'The ZIP, under the same rule as the list: 403 when no active license of the caller covers it.',
      params: IdParams, produces: ['application/zip'],
      response: { ...responses({}, [404]), 200: { description: 'The ZIP archive', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } } },
    },
    config: { access: { roles: BUYERS } },
  }, async (req, reply) => {
    const file = await builds.download(principalOf(req), req.params.id)
    return reply.header('content-type', 'application/zip').header('content-disposition', attachmentDisposition(file.filename)).header('x-content-sha256', file.sha256).send(file.content as never) // bytes, not the JSON the type provider expects
  })
}
