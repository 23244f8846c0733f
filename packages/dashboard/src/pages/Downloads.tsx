import { ApiError, type Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, dateTime, Field, ListView, Page, saveBlob, Table, useLoad, useUrlFilters } from '../ui.tsx'

type Build = Schemas['Build']

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`)

/** Rows of one page grouped by product and ERP version, in the order the server sorted them. */
function groups(rows: Build[]) {
  const out = new Map<string, { productName: string; erpVersion: string; builds: Build[] }>()
  for (const b of rows) {
    const k = `${b.productId}|${b.erpVersion}`
    if (!out.has(k)) out.set(k, { productName: b.productName, erpVersion: b.erpVersion, builds: [] })
    out.get(k)!.builds.push(b)
  }
  return [...out.values()]
}

/** Account, downloads (docs/licenses.md "Module builds and downloads"): the module builds the caller's active licenses entitle them to. The filter and page live in the address. */
export function DownloadsPage() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const erpVersion = f.get('erpVersion')
  const list = useLoad(
    () => api.get('/api/portal/downloads', { params: { query: { page, limit: 50, sortBy: 'version', sortOrder: 'desc', ...(erpVersion ? { erpVersion } : {}) } } }),
    [page, erpVersion],
  )
  // The ERP versions of the caller's licenses: the only ones with downloads.
  const versions = useLoad(async () => [...new Set((await api.get('/api/licenses')).map((l) => l.erpVersion))].sort((a, b) => parseFloat(b) - parseFloat(a)), [])
  const download = async (b: Build) => {
    const { data, error, response } = await api.raw.GET('/api/portal/downloads/{id}/file', { params: { path: { id: b.id } }, parseAs: 'blob' })
    if (error !== undefined || !data) throw new ApiError(response, error)
    saveBlob(data as Blob, b.filename)
  }

  return (
    <Page title="Downloads">
      <Card
        title="Module builds"
        actions={
          <Field label="ERP version">
            <select value={erpVersion} onChange={(e) => f.set('erpVersion', e.target.value)}>
              <option value="">all</option>
              {erpVersion && !versions.data?.includes(erpVersion) && <option>{erpVersion}</option>}
              {versions.data?.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </Field>
        }
      >
        <p className="muted">The builds of the modules your active licenses cover, for the ERP version of each license. Install the ZIP as an add-on of your ERP, then enter the license key in the module's settings.</p>
        <ListView
          list={list}
          onPage={f.setPage}
          empty={erpVersion ? `No builds for ERP ${erpVersion}. Pick another version.` : 'Nothing to download yet: builds appear here for the modules of your active licenses. Buy a connector in the Store.'}
          render={(rows) =>
            groups(rows).map((g) => (
              <section key={`${g.productName}|${g.erpVersion}`} className="download-group" aria-label={`${g.productName}, ERP ${g.erpVersion}`}>
                <h3>
                  {g.productName} <span className="muted">· ERP {g.erpVersion}</span>
                </h3>
                {/* The kit's Table: its box takes the keyboard's focus when it scrolls sideways on a phone. */}
                <Table
                  caption={`Builds of ${g.productName} for ERP ${g.erpVersion}`}
                  rows={g.builds}
                  rowKey={(b) => b.id}
                  empty="No builds."
                  columns={[
                    {
                      label: 'Version',
                      cell: (b) => (
                        <>
                          <code>{b.version}</code> {page === 1 && g.builds[0] === b && <Badge tone="good">latest</Badge>}
                        </>
                      ),
                    },
                    { label: 'File', cell: (b) => b.filename },
                    { label: 'Size', align: 'right', cell: (b) => size(b.size) },
                    { label: 'Published', cell: (b) => dateTime(b.createdAt) },
                    {
                      label: 'Actions',
                      cell: (b) => (
                        <ActionButton variant={page === 1 && g.builds[0] === b ? 'primary' : undefined} action={() => download(b)}>
                          Download <span className="visually-hidden">{`${g.productName} ${b.version}`}</span>
                        </ActionButton>
                      ),
                    },
                  ]}
                />
              </section>
            ))
          }
        />
      </Card>
    </Page>
  )
}
