import { randomUUID } from 'node:crypto'
import { Inject, Injectable } from '@nestjs/common'
import type { Repository } from 'typeorm'
import type { Contact } from './contact.entity.ts'
import { CONTACT_REPOSITORY, ORGANIZATION_ID } from './database.providers.ts'

export interface CreateContactDto {
  name: string
  email?: string | null
  phone?: string | null
}

@Injectable()
export class ContactsService {
  constructor(
    @Inject(CONTACT_REPOSITORY) private readonly contacts: Repository<Contact>,
    @Inject(ORGANIZATION_ID) private readonly organizationId: string,
  ) {}

  create(dto: CreateContactDto): Promise<Contact> {
    const contact = this.contacts.create({ id: randomUUID(), organizationId: this.organizationId, name: dto.name, email: dto.email ?? null, phone: dto.phone ?? null })
    return this.contacts.save(contact)
  }

  async list(page: number, limit: number) {
    const [data, total] = await this.contacts.findAndCount({
      where: { organizationId: this.organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    })
    return { data, total, page, limit }
  }
}
