// The TypeORM providers of the NestJS documentation's recipe "SQL (TypeORM)"
// (a DataSource provider, a repository provider per entity), as an app does it
// without @nestjs/typeorm.
import { DataSource, type Repository } from 'typeorm'
import { Contact } from './contact.entity.ts'

export const DATA_SOURCE = 'DATA_SOURCE'
export const CONTACT_REPOSITORY = 'CONTACT_REPOSITORY'
export const ORGANIZATION_ID = 'ORGANIZATION_ID'

export const databaseProviders = [
  {
    provide: DATA_SOURCE,
    useFactory: async () =>
      new DataSource({
        type: 'postgres',
        url: process.env.DATABASE_URL,
        entities: [Contact],
        synchronize: false,
        logging: process.env.NEST_SQL_LOG === '1',
        // pg's pool of 10 connections, as the service's PG_POOL_SIZE default.
        poolSize: 10,
      }).initialize(),
  },
  {
    provide: CONTACT_REPOSITORY,
    useFactory: (dataSource: DataSource): Repository<Contact> => dataSource.getRepository(Contact),
    inject: [DATA_SOURCE],
  },
  // The organization the bench seeded: the app has no authentication, it writes and reads that tenant's rows.
  { provide: ORGANIZATION_ID, useFactory: () => process.env.ORGANIZATION_ID },
]
