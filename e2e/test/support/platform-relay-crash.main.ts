import 'reflect-metadata';
import { transportFromEnv } from '@dtp/events';
import { platformService } from '@dtp/platform';
import { runStandalone } from '@dtp/service-kit';

/**
 * Test-only entry point: platform as its own process, whose outbox relay kills the process (SIGKILL) after it
 * published its first batch and before it marked it published: a crash between publish and mark. The fault is
 * injected through the service's dependencies (PlatformDeps.relayFaults), not read from the environment by
 * production code.
 */
void runStandalone(platformService, async (_config, logger) => ({
  transport: await transportFromEnv('platform', logger),
  relayFaults: {
    afterPublish: () => {
      logger.warn('fault injection: killing the process between publish and mark');
      process.kill(process.pid, 'SIGKILL');
    },
  },
}));
