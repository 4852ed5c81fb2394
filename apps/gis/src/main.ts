import './tracing';
import 'reflect-metadata';
import { runStandalone } from '@dtp/service-kit';
import { transportFromEnv } from '@dtp/events';
import { gisService } from './app';

void runStandalone(gisService, async (_config, logger) => ({ transport: await transportFromEnv('gis', logger) }));
