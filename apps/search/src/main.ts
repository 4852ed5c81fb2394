import './tracing';
import 'reflect-metadata';
import { runStandalone } from '@dtp/service-kit';
import { transportFromEnv } from '@dtp/events';
import { searchService } from './app';

void runStandalone(searchService, async (_config, logger) => ({ transport: await transportFromEnv('search', logger) }));
