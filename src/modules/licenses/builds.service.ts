import { createHash, randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import type { Db } from '../../core/db.ts'
import { ForbiddenError, NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import { emptyPage, type PageParams } from '../../core/pagination.ts'
import type { ProductsService } from '../products/index.ts'
import { buildsRepository as repo } from './builds.repository.ts'
import type { Build, BuildListQuery } from './licenses.schemas.ts'

registerUniqueMessage('module_builds_product_version_key', 'A build of this version already exists for this product')

/** <erp_major>.0.<module_major>.<minor>.<patch>, e.g. 19.0.2.0.0 (docs/licenses.md "Build versions"). */
const MODULE_VERSION = /^(\d{1,3})\.0\.(\d{1,4})\.(\d{1,4})\.(\d{1,4})$/

/** Local file header or empty-archive record: the first bytes of every ZIP file. */
const isZip = (b: Buffer) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6))

export interface BuildUpload {
  version?: string
  file?: { filename: string; content: Buffer }
  /** Form fields other than version and file, refused like unknown JSON fields. */
  unknownFields: string[]
}

export class BuildsService {
  constructor(
    private readonly db: Db,
    private readonly products: ProductsService,
  ) {}

  /** 404 for a product of another organization, before anything of an upload is read. */
  async checkProduct(p: Principal, productId: string) {
    await this.products.get(p.organizationId, productId)
  }

  async upload(p: Principal, productId: string, form: BuildUpload) {
    const product = await this.products.get(p.organizationId, productId)
    const problems = form.unknownFields.map((f) => `${f} is not allowed`)
    if (!product.moduleName || !product.erpVersion) problems.push('builds can only be uploaded for licensed products (with moduleName)')
    const m = form.version === undefined ? null : MODULE_VERSION.exec(form.version.trim())
    if (form.version === undefined) problems.push('version is required')
    else if (!m) problems.push('version must look like 19.0.2.0.0 (<erp_major>.0.<module_major>.<minor>.<patch>)')
    else if (product.erpVersion && `${m[1]}.0` !== product.erpVersion) problems.push(`version ${form.version.trim()} is not for ERP ${product.erpVersion}, the version of this product`)
    if (!form.file) problems.push('file is required')
    else if (!isZip(form.file.content)) problems.push('file must be a ZIP archive')
    if (problems.length) throw new ValidationError(problems)
    const content = form.file!.content
    return repo.insert(this.db, {
      id: randomUUID(),
      organizationId: p.organizationId,
      productId,
      version: form.version!.trim(),
      erpVersion: product.erpVersion!,
      filename: form.file!.filename || `${product.moduleName}-${form.version!.trim()}.zip`,
      content,
      sha256: createHash('sha256').update(content).digest('hex'),
    })
  }

  async listForProduct(p: Principal, productId: string, page: PageParams) {
    await this.products.get(p.organizationId, productId)
    return repo.listForProduct(this.db, p.organizationId, productId, page)
  }

  /** GET /portal/downloads: builds the caller's active licenses entitle them to. */
  entitled(p: Principal, query: BuildListQuery & PageParams) {
    if (!p.userId) return Promise.resolve(emptyPage<Build>(query))
    return repo.listEntitled(this.db, p.organizationId, p.userId, query)
  }

  /** The ZIP; 404 when no such build exists here, 403 when the caller holds no active license for it. */
  async download(p: Principal, id: string) {
    const file = p.userId ? await repo.findEntitledFile(this.db, p.organizationId, p.userId, id) : undefined
    if (file) return file
    if (await repo.exists(this.db, p.organizationId, id)) {
      throw new ForbiddenError('No active license of yours covers this build (product and ERP version)')
    }
    throw new NotFoundError('Download')
  }
}
