import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { createHttpApp } from '../../src/bootstrap';
import { newServiceContext } from '../../src/listen';

/** A service app of `module`, as the kit builds every service's (a silent logger, placeholder OpenAPI titles). */
export const kitApp = (name: string, module: Type<unknown>): Promise<NestFastifyApplication> =>
  createHttpApp({ ctx: newServiceContext(name, pino({ level: 'silent' })), module, docs: { title: 't', description: 'd', version: '1' } });
