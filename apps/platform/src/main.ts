import './tracing';
import 'reflect-metadata';
import { runStandalone } from '@dtp/service-kit';
import { transportFromEnv } from '@dtp/events';
import { platformService } from './app';

void runStandalone(platformService, async (_config, logger) => ({ transport: await transportFromEnv('platform', logger) }));
