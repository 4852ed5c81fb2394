import type { Logger } from 'pino';
import type { EventTransport } from '@dtp/events';
import type { RunningService } from '@dtp/service-kit';

/*
 * The shape of a test stack and its fixed names. The stack itself, which starts the four services, lives with the
 * test harness (tools/testing/test-stack.ts, `@dtp/test-stack`): a library never imports an app.
 */

export type ServiceName = 'auth' | 'platform' | 'search' | 'gis';

/** Fixed audiences and issuer for tests (the real addresses are ephemeral ports). */
export const TEST_ISSUER = 'http://auth.test';
export const TEST_AUDIENCES = {
  platform: 'http://platform.test',
  search: 'http://search.test/v1',
  gis: 'http://gis.test',
} as const;
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestStack {
  urls: Partial<Record<ServiceName, string>>;
  services: Partial<Record<ServiceName, RunningService>>;
  databases: Partial<Record<ServiceName, string>>;
  transport: EventTransport;
  close(): Promise<void>;
}

export interface TestStackOptions {
  services: ServiceName[];
  /**
   * Extra env per service (e.g. a lower file size limit); a function gets the URLs of the services started before
   * it (search's PLATFORM_PUBLIC_URL = the platform's ephemeral address).
   */
  env?: Partial<Record<ServiceName, Record<string, string> | ((urls: Partial<Record<ServiceName, string>>) => Record<string, string>)>>;
  transport?: EventTransport;
  logger?: Logger;
}
