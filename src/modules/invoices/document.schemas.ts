import { Type } from 'typebox'
import { Nullable } from '../../core/schemas.ts'
import { ValidationError } from '../../core/errors.ts'

/**
 * Pieces shared by the commercial documents (quotations, orders, invoices,
 * credit notes): embedded references, currency, timestamps given as a date or
 * a date-time, and the pricing fields of a line.
 */

export { Nullable }
export const ContactRef = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), email: Nullable(Type.String()) })
export const EmployeeRef = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })

export const CurrencyInput = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code (e.g. eur); stored lower-case' })

const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$'
/** ISO 8601 date (YYYY-MM-DD, read as midnight UTC) or date-time. */
export const TimestampInput = Type.String({ pattern: TIMESTAMP_PATTERN, description: 'ISO 8601 date-time, or a date (midnight UTC)' })
export const Timestamp = Type.String({ format: 'date-time' })

export const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000 })
export const UnitPrice = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Cents' })
export const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description })
export const Discount = Percent('Percentage taken off the line amount (10 reduces the line by 10 percent)')
export const TaxRate = Percent('Tax rate of the line in percent; taxAmount is the sum of round(line total * taxRate / 100)')

const isDateOnly = (s: string) => s.length === 10

/** The calendar date exists (2026-02-30 does not). */
function isRealDate(value: string) {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number)
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/**
 * A timestamp input as a Date; 422 naming the field when it does not exist
 * (2026-02-30, 25:00). A value without a zone is UTC. With `endOfDay`, a
 * date-only value means the last millisecond of that day (inclusive `to`).
 */
export function parseTimestamp(value: string, field: string, opts: { endOfDay?: boolean } = {}): Date {
  const dateOnly = isDateOnly(value)
  const zoned = dateOnly ? `${value}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`
  const d = new Date(zoned)
  if (Number.isNaN(d.getTime()) || !isRealDate(value)) throw new ValidationError(`${field} is not a valid date`)
  if (opts.endOfDay && dateOnly) return new Date(d.getTime() + 24 * 3600 * 1000 - 1)
  return d
}

/** from/to filters as a range; from after to is 422 (a bad date range). */
export function parseRange(from: string | undefined, to: string | undefined) {
  const range = {
    from: from === undefined ? undefined : parseTimestamp(from, 'from'),
    to: to === undefined ? undefined : parseTimestamp(to, 'to', { endOfDay: true }),
  }
  if (range.from && range.to && range.from > range.to) throw new ValidationError('from must not be after to')
  return range
}

export const normalizeCurrency = (c: string) => c.toLowerCase()
