import { BadRequestException, Body, Controller, Get, Inject, Post, Query } from '@nestjs/common'
import { ContactsService, type CreateContactDto } from './contacts.service.ts'

const int = (v: string | undefined, fallback: number, max: number) => {
  const n = v === undefined ? fallback : Number(v)
  if (!Number.isInteger(n) || n < 1 || n > max) throw new BadRequestException('page and limit are positive integers')
  return n
}

@Controller('contacts')
export class ContactsController {
  constructor(@Inject(ContactsService) private readonly contacts: ContactsService) {}

  // No ValidationPipe (class-validator and class-transformer are not dependencies):
  // the same few checks by hand.
  @Post()
  create(@Body() body: CreateContactDto) {
    if (typeof body?.name !== 'string' || body.name.length < 1 || body.name.length > 200) throw new BadRequestException('name is required')
    if (body.email != null && (typeof body.email !== 'string' || !body.email.includes('@'))) throw new BadRequestException('email is invalid')
    return this.contacts.create(body)
  }

  @Get()
  list(@Query('page') page?: string, @Query('limit') limit?: string) {
    return this.contacts.list(int(page, 1, 1_000_000), int(limit, 20, 100))
  }
}
