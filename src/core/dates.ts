import { Type } from 'typebox'
import { ValidationError } from './errors.ts'

/**
 * Dates and ranges as every module reads them: inputs given as a date or a
 * date-time, whole UTC days in SQL, and calendar arithmetic.
 */

const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$'
/** ISO 8601 date (YYYY-MM-DD, read as midnight UTC) or date-time. */
export const TimestampInput = Type.String({ pattern: TIMESTAMP_PATTERN, maxLength: 40, description: 'ISO 8601 date-time, or a date (midnight UTC)' })
export const Timestamp = Type.String({ format: 'date-time' })

/** A range of whole UTC days, as YYYY-MM-DD. */
export interface DayRange {
  from: string
  to: string
}

const isDateOnly = (s: string) => s.length === 10

/**
 * The years (UTC) a date input may fall in. Date and PostgreSQL hold more,
 * but a year past 9999 is written "+010000-..." by toISOString, which
 * PostgreSQL refuses (500 before this bound), and no business date of this
 * API lies before 1900.
 */
export const MIN_YEAR = 1900
export const MAX_YEAR = 9999

/** The instant exists (not an Invalid Date) and its UTC year is within MIN_YEAR..MAX_YEAR. */
export function isStorableInstant(d: Date): boolean {
  if (!Number.isFinite(d.getTime())) return false
  const year = d.getUTCFullYear()
  return year >= MIN_YEAR && year <= MAX_YEAR
}

/** The UTC day of an instant, YYYY-MM-DD: a journal entry's date (docs/accounting.md "Journal entries"). */
export const utcDay = (d: Date = new Date()) => d.toISOString().slice(0, 10)

/** Whether the instant falls on a UTC day after today (dates of done stock moves may not). */
export function isAfterToday(d: Date, now = new Date()): boolean {
  return d.getTime() >= Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)
}

/** The calendar date exists (2026-02-30 does not). */
function isRealDate(value: string) {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number)
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/**
 * A timestamp input as a Date; 422 naming the field when it does not exist
 * (2026-02-30, 25:00) or falls outside the years 1900 to 9999 once converted
 * to UTC (9999-12-31T23:00:00-01:00 is in 10000). A value without a zone is UTC. With `endOfDay`, a
 * date-only value means the last millisecond of that day (inclusive `to`).
 */
export function parseTimestamp(value: string, field: string, opts: { endOfDay?: boolean } = {}): Date {
  const dateOnly = isDateOnly(value)
  const zoned = dateOnly ? `${value}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`
  const d = new Date(zoned)
  if (Number.isNaN(d.getTime()) || !isRealDate(value)) throw new ValidationError(`${field} is not a valid date`)
  if (!isStorableInstant(d)) throw new ValidationError(`${field} must fall within the years ${MIN_YEAR} to ${MAX_YEAR} (UTC)`)
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

/** SQL: column within the whole UTC days from $a to $b (dates), whatever the session time zone. */
export const inDays = (column: string, a: string, b: string) =>
  `${column} >= (${a}::date)::timestamp AT TIME ZONE 'UTC' AND ${column} < (${b}::date + 1)::timestamp AT TIME ZONE 'UTC'`

/** One billing interval later, in UTC calendar terms (Jan 31 + 1 month = Mar 3, as Date does). */
export function addInterval(from: Date, interval: 'month' | 'year'): Date {
  const d = new Date(from)
  if (interval === 'month') d.setUTCMonth(d.getUTCMonth() + 1)
  else d.setUTCFullYear(d.getUTCFullYear() + 1)
  return d
}
