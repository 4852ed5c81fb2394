import './tracing';
import 'reflect-metadata';
import { runStandalone } from '@dtp/service-kit';
import { transportFromEnv } from '@dtp/events';
import { authService } from './app';

void runStandalone(authService, async (_config, logger) => ({ transport: await transportFromEnv('auth', logger) }));
