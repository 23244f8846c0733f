import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'

export const IMPORT_RESOURCES = ['contacts', 'products', 'employees', 'stock'] as const
export type ImportResource = (typeof IMPORT_RESOURCES)[number]
export const IMPORT_MODES = ['insert', 'upsert'] as const
export type ImportMode = (typeof IMPORT_MODES)[number]
export const IMPORT_STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const
export type ImportStatus = (typeof IMPORT_STATUSES)[number]

/** Rows of a JSON import; a larger one is a CSV file (docs/imports.md "Limits"). */
export const MAX_JSON_ROWS = 1000

const Resource = StringEnum(IMPORT_RESOURCES, { description: 'What the rows are: contacts, products, employees or stock (quantities to hold)' })
const Mode = StringEnum(IMPORT_MODES, { description: 'insert (default): every row is new; upsert: a row whose key exists updates it (PATCH), others are created' })

export const CreateImportBody = Named('CreateImport', Type.Object({
  resource: Resource,
  mode: Type.Optional(Mode),
  dryRun: Type.Optional(Type.Boolean({ description: 'Check and carry out every write, then roll it back: the counts it would make, nothing kept' })),
  // Open to any field name, so that a row with a field its resource does not have errs by row with the POST's message
  // (docs/imports.md "Errors"); each row is checked field by field by the resource's own closed schema before any SQL.
  rows: Type.Array(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 100 }), {
    minItems: 1, maxItems: MAX_JSON_ROWS,
    description: 'The rows, each with the fields of the resource\'s POST (docs/imports.md "Columns"); at most 1,000 (a larger import is a CSV file)',
  }),
}, { additionalProperties: false }))
export type CreateImport = Static<typeof CreateImportBody>

/** The multipart form of a CSV upload, as documented (the route reads the parts itself: docs/imports.md "Uploading"). */
export const ImportUploadForm = Named('ImportUpload', Type.Object({
  resource: Resource,
  mode: Type.Optional(Mode),
  dryRun: Type.Optional(StringEnum(['true', 'false'] as const, { description: 'true: check and carry out every write, then roll it back (default false)' })),
  file: Type.String({ format: 'binary', description: 'The CSV file: UTF-8 with or without BOM, a header row of field names, quotes per RFC 4180; at most 10 MiB and 50,000 data rows' }),
}, { required: ['resource', 'file'], additionalProperties: false, description: 'Other fields are refused (422)' }))

export const ImportError = Type.Object({
  row: Type.Integer({ description: 'The data row, counted from 1 (the CSV header not counted); 0 for the import as a whole (a rule broken by a concurrent change while writing)' }),
  field: Type.String({ description: 'The field (column) at fault; empty when the row as a whole is' }),
  message: Type.String({ description: 'The message the single POST or PATCH would give' }),
})

export const Import = Named('Import', Type.Object({
  id: Type.String({ format: 'uuid' }),
  resource: Resource,
  mode: Mode,
  dryRun: Type.Boolean(),
  status: StringEnum(IMPORT_STATUSES),
  totalRows: Type.Integer({ description: 'Data rows of the file or of rows' }),
  processedRows: Type.Integer({ description: 'Rows checked so far (docs/imports.md "Progress")' }),
  created: Type.Integer({ description: 'Records created (a dry run: that it would create)' }),
  updated: Type.Integer({ description: 'Records updated (a dry run: that it would update)' }),
  errors: Type.Array(ImportError, { description: 'Row errors, at most 1,000, by row' }),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
}))
export type Import = Static<typeof Import>
export type ImportError = Static<typeof ImportError>
export const ImportList = Named('ImportList', listOf(Import))

export const ImportListQuery = listQuery(['createdAt'] as const, {
  status: Type.Optional(StringEnum(IMPORT_STATUSES)),
  resource: Type.Optional(Resource),
})
export type ImportListQuery = Static<typeof ImportListQuery>
