import { renderDocumentPdf, type PdfDocument } from './pdf.ts'
import { loadFonts } from './typeset.ts'

/**
 * The PDF renderer as a task of the CPU pool (src/core/cpu-pool.ts): this
 * module runs inside a worker thread, loaded once per worker, so the fonts
 * are read and parsed here, once, before the first document.
 */
loadFonts()

/** Renders the document; its logo arrives as a Uint8Array (structured clone) and becomes a Buffer again for pdfkit. */
export async function renderPdf(d: PdfDocument): Promise<Uint8Array> {
  const logo = d.seller.logo
  const seller = logo && !Buffer.isBuffer(logo) ? { ...d.seller, logo: Buffer.from((logo as Uint8Array).buffer, (logo as Uint8Array).byteOffset, (logo as Uint8Array).byteLength) } : d.seller
  return await renderDocumentPdf({ ...d, seller })
}
