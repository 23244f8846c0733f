// Prints the databases whose name carries the tag of this CI run (TEST_DB_TAG):
// every test database should have been dropped by the test that made it.
import pg from 'pg'

const [base, tag] = process.argv.slice(2)
const client = new pg.Client({ connectionString: base })
await client.connect()
const { rows } = await client.query("SELECT datname FROM pg_database WHERE strpos(datname, '_' || $1) > 0 ORDER BY datname", [tag])
await client.end()
console.log(rows.map((r) => r.datname).join(' '))
