import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm'

/**
 * The contacts table of the service, mapped as a TypeORM user maps an existing
 * table: explicit column types (no decorator metadata under tsx), snake_case
 * names, the database defaults declared so that `save` sends DEFAULT for them.
 * The id is a client-side UUID (@PrimaryColumn): the table has no default for it.
 */
@Entity({ name: 'contacts' })
export class Contact {
  @PrimaryColumn({ type: 'uuid' })
  id!: string

  @Column({ type: 'uuid', name: 'organization_id' })
  organizationId!: string

  @Column({ type: 'text' })
  name!: string

  @Column({ type: 'text', nullable: true })
  email!: string | null

  @Column({ type: 'text', nullable: true })
  phone!: string | null

  @Column({ type: 'text', default: 'company' })
  type!: 'company' | 'individual'

  @Column({ type: 'boolean', default: false })
  vendor!: boolean

  @Column({ type: 'text', name: 'tax_id', nullable: true })
  taxId!: string | null

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date
}
