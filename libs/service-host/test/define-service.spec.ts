import { Controller, Get, Inject, Injectable, Module } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { IsInt, IsString, Min } from 'class-validator';
import pino from 'pino';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TokenCheckingConfig } from '@dtp/auth-guard';
import { EventTypes, KnownEventEnvelope, makeEnvelope, Topics } from '@dtp/domain';
import { createConsumerTables, EventRoute, InProcessTransport, jsonMessage } from '@dtp/events';
import { loadConfig, Public, RunningService } from '@dtp/service-kit';
import { createTestDatabase, sqlRows } from '@dtp/testing';
import { defineService, HostedServiceDeps, previewTransport } from '../src';

class DemoConfig extends TokenCheckingConfig {
  @IsString()
  DATABASE_URL!: string;

  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 4;

  @IsString()
  GREETING: string = 'hello';
}

const DEMO_CONFIG = Symbol('DEMO_CONFIG');

class DemoTables1700000000000 implements MigrationInterface {
  name = 'DemoTables1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await createConsumerTables(q);
  }
  async down(): Promise<void> {}
}

/** What the demo's event handler has seen. */
@Injectable()
class Seen {
  readonly participants: string[] = [];
}

@Controller()
class DemoController {
  constructor(
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
    @Inject(Seen) private readonly seen: Seen,
  ) {}

  @Public()
  @Get('hello')
  hello(): { greeting: string } {
    return { greeting: this.config.GREETING };
  }

  @Get('private')
  private(): { secret: true } {
    return { secret: true };
  }

  @EventPattern(Topics.AUTH_PARTICIPANTS, { name: 'demo' } satisfies EventRoute)
  onParticipant(@Payload() envelope: KnownEventEnvelope): void {
    if (envelope.event_type === EventTypes.PARTICIPANT_ONBOARDED) this.seen.participants.push(envelope.data.participant_id);
  }
}

@Module({ controllers: [DemoController], providers: [Seen] })
class DemoFeatureModule {}

const demoService = defineService<DemoConfig, HostedServiceDeps>({
  name: 'demo',
  configClass: DemoConfig,
  docs: () => ({ title: 'demo', description: 'a service on the skeleton', version: '1.0.0' }),
  database: { entities: [], migrations: [DemoTables1700000000000] },
  events: () => ({ group: 'demo' }),
  providers: () => ({ providers: [{ provide: DEMO_CONFIG, useExisting: DemoConfig }], exports: [DEMO_CONFIG] }),
  api: (config) => ({ tokens: config.tokenVerifierOptions('http://demo.test'), rateLimits: config, idempotency: true }),
  features: [DemoFeatureModule],
});

const logger = pino({ level: 'silent' });

async function waitFor(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('defineService: one skeleton for every service', () => {
  let url: string;
  let config: DemoConfig;
  let transport: InProcessTransport;
  let running: RunningService;

  beforeAll(async () => {
    url = await createTestDatabase('host');
    // AUTH_JWKS_URL answers nothing: the guard refuses a request without a token before it needs the keys.
    config = loadConfig('demo', DemoConfig, { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: url, GREETING: 'bonjour', AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks' });
    await demoService.migrate(config, logger);
    transport = new InProcessTransport();
    running = await demoService.start(config, { transport }, logger);
  });

  afterAll(async () => {
    await running?.close();
    await transport?.close();
  });

  it('runs the migrations of the service database it describes', async () => {
    const rows = await sqlRows<{ name: string }>(url, 'SELECT name FROM schema_migrations');
    expect(rows.map((r) => r.name)).toEqual(['DemoTables1700000000000']);
  });

  it('serves its features with its config and global providers, behind the token guard', async () => {
    const hello = await fetch(`${running.url}/hello`);
    expect(hello.status).toBe(200);
    expect(await hello.json()).toEqual({ greeting: 'bonjour' });
    const denied = await fetch(`${running.url}/private`);
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error?: string }).error).toBe('invalid_token');
  });

  it('tells its readiness from its own database', async () => {
    const ready = await fetch(`${running.url}/health/ready`);
    expect(ready.status).toBe(200);
    const body = await ready.json();
    expect(body).toMatchObject({ checks: { database: 'up' } });
  });

  it('connects its @EventPattern handlers as consumers, the revocation deny-list included', async () => {
    const participantId = '6f1e2c3d-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
    const onboarded = makeEnvelope({
      event_type: 'participant.onboarded',
      data: { participant_id: participantId, name: 'P', role: 'producer', provenance: null },
      revision: 1,
    });
    const revoked = makeEnvelope({
      event_type: 'client.revoked',
      data: { client_id: 'client-demo-1', participant_id: participantId, revoked_at: new Date().toISOString() },
      revision: 1,
    });
    await transport.publish([
      jsonMessage(Topics.AUTH_PARTICIPANTS, onboarded.key, JSON.stringify(onboarded)),
      jsonMessage(Topics.AUTH_PARTICIPANTS, revoked.key, JSON.stringify(revoked)),
    ]);
    const app = running.app;
    await waitFor(() => app.get(Seen).participants.includes(participantId), 'the demo handler to see participant.onboarded');
    await waitFor(
      async () => /token_revoked_clients\{service="demo"\} 1/.test(await (await fetch(`${running.url}/metrics`)).text()),
      'the deny-list to hold the revoked client',
    );
  });

  it('builds its OpenAPI document from the same module, without dependencies', async () => {
    const doc = await demoService.openapi(config);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/hello', '/private']));
    expect(doc.info.title).toBe('demo');
  });

  it('gives a preview a transport that says why it cannot be used', async () => {
    await expect(previewTransport('demo').publish([])).rejects.toThrow('demo: this instance was built for its OpenAPI document only');
  });
});
