import { Transform, type Readable } from 'node:stream'
import { parse } from 'csv-parse'
import type { TSchema } from 'typebox'

/** The limits of a CSV import (docs/imports.md "Limits"). */
export const MAX_CSV_BYTES = 10 * 1024 * 1024
export const MAX_CSV_ROWS = 50_000
/** Rows staged per statement, checked and written per chunk. */
export const CHUNK_ROWS = 1000

/** The file is not CSV (not UTF-8, broken quotes, rows of another width, no header): 422 at upload. */
export class NotCsvError extends Error {}
/** More data rows than MAX_CSV_ROWS: 422 at upload. */
export class TooManyRowsError extends Error {}
/** The upload's stream failed (a limit: its status, 413; a body cut short): not the file's content. */
export class UploadError extends Error {
  constructor(readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause))
  }
}

/** UTF-8 checked as it streams: a byte sequence that is not UTF-8 stops the file (NotCsvError). */
function strictUtf8() {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  return new Transform({
    decodeStrings: true,
    transform(chunk: Buffer, _enc, done) {
      try {
        done(null, decoder.decode(chunk, { stream: true }))
      } catch {
        done(new NotCsvError('The file is not UTF-8 text'))
      }
    },
    flush(done) {
      try {
        done(null, decoder.decode())
      } catch {
        done(new NotCsvError('The file is not UTF-8 text'))
      }
    },
  })
}

/**
 * The data rows of a CSV stream, in batches of CHUNK_ROWS, as objects of
 * header -> cell with the empty cells left out (an empty cell is an absent
 * field). Streams: one batch is held at a time (csv-parse, RFC 4180 quotes,
 * a leading BOM dropped). Throws NotCsvError or TooManyRowsError.
 */
export async function* csvBatches(file: Readable): AsyncGenerator<Array<Record<string, string>>> {
  // A small body may have been read whole, and its part failed (cut short), before this runs.
  if (file.errored) throw new UploadError(file.errored)
  const parser = parse({ bom: true, relax_column_count: false, skip_empty_lines: true, max_record_size: 1024 * 1024 })
  const decoded = file.pipe(strictUtf8())
  decoded.on('error', (err) => parser.destroy(err))
  file.on('error', (err) => parser.destroy(new UploadError(err)))
  decoded.pipe(parser)
  let header: string[] | undefined
  let batch: Array<Record<string, string>> = []
  let count = 0
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map((h) => h.trim())
        if (header.some((h) => h === '')) throw new NotCsvError('The header row has an empty column name')
        if (new Set(header).size !== header.length) throw new NotCsvError('The header row names a column twice')
        continue
      }
      if (++count > MAX_CSV_ROWS) throw new TooManyRowsError(`The file has more than ${MAX_CSV_ROWS} data rows`)
      const row: Record<string, string> = {}
      record.forEach((cell, i) => {
        if (cell !== '') row[header![i]] = cell
      })
      batch.push(row)
      if (batch.length === CHUNK_ROWS) {
        yield batch
        batch = []
      }
    }
  } catch (err) {
    if (err instanceof NotCsvError || err instanceof TooManyRowsError || err instanceof UploadError) throw err
    // csv-parse's own errors (CSV_...) mean the file is not CSV.
    const e = err as { code?: string; message?: string }
    if (!e.code?.startsWith('CSV_')) throw err
    throw new NotCsvError(`The file is not CSV: ${e.message}`)
  }
  if (!header) throw new NotCsvError('The file is empty: a CSV import needs a header row')
  if (batch.length) yield batch
}

/** The JSON type of a property of an object schema; a nullable field (anyOf [T, null]) answers T's. */
function typeOf(schema: TSchema | undefined): string | undefined {
  if (!schema) return undefined
  const s = schema as { type?: string | string[]; anyOf?: TSchema[] }
  if (typeof s.type === 'string') return s.type
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null')
  return s.anyOf?.map(typeOf).find((t) => t !== undefined && t !== 'null')
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

/**
 * A CSV row's cells as the values of a JSON row, by the type of each field in
 * the resource's POST schema (docs/imports.md "Cells"): boolean true/false,
 * numbers in JSON syntax, an object (an address) as a JSON object, strings as
 * they are. A cell that is none of these for its type stays text, so that the
 * schema check gives the POST's message ("vendor must be boolean").
 */
export function cellsToValues(cells: Record<string, unknown>, schema: TSchema): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {}
  const out: Record<string, unknown> = {}
  for (const [field, cell] of Object.entries(cells)) {
    out[field] = typeof cell === 'string' ? cellValue(cell, typeOf(Object.hasOwn(properties, field) ? properties[field] : undefined)) : cell
  }
  return out
}

function cellValue(cell: string, type: string | undefined): unknown {
  switch (type) {
    case 'boolean':
      return cell === 'true' ? true : cell === 'false' ? false : cell
    case 'number':
    case 'integer':
      return JSON_NUMBER.test(cell) ? Number(cell) : cell
    case 'object':
      try {
        const v = JSON.parse(cell)
        return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : cell
      } catch {
        return cell
      }
    default:
      return cell
  }
}
