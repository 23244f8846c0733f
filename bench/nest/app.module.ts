import { Module } from '@nestjs/common'
import { ContactsController } from './contacts.controller.ts'
import { ContactsService } from './contacts.service.ts'
import { databaseProviders } from './database.providers.ts'

@Module({
  controllers: [ContactsController],
  providers: [...databaseProviders, ContactsService],
})
export class AppModule {}
