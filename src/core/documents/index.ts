/**
 * The documents kernel: what every commercial document (quotation, order,
 * invoice, credit note, RFQ, vendor bill) shares. Modules import this file,
 * never its parts; it names no module (lookups are interfaces the owning
 * services satisfy).
 */
export { Quantity, UnitPrice, Percent, Discount, TaxRate, SalesLine, toSalesLine, priceLines } from './lines.ts'
export type { LineRequest, PricedLine, PricedDocument, ProductLookup } from './lines.ts'
export { ContactRef, EmployeeRef, contactRef, employeeRef, referenced } from './refs.ts'
export type { ContactLookup, EmployeeLookup } from './refs.ts'
export { renderPdf, documentTotals, formatMoney, pdfFilename, PdfResponse } from './pdf.ts'
export type { PdfDocument, PdfLine, PdfMark, PdfTotal } from './pdf.ts'
export { PostalAddress, PostalAddressInput, normalizeAddress, addressLines, documentBuyer } from './parties.ts'
export type { DocumentParty, DocumentSeller, SellerLookup, BuyerLookup } from './parties.ts'
export { readLogo, LOGO_MAX_BYTES } from './images.ts'
export { SendBody, SendResult, mailDocument, organizationName } from './send.ts'
export type { SendInput, MailQueue, OrganizationLookup } from './send.ts'
export { findDocument } from './sql.ts'
