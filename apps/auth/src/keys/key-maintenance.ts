import { Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { KeysModule } from './keys.module';
import { SigningKeys } from './signing-keys';

/** The first start generates the first signing key (under the key lock: replicas starting together make one). */
@Injectable()
export class ActiveKeyOnStart implements OnApplicationBootstrap {
  constructor(@Inject(SigningKeys) private readonly keys: SigningKeys) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keys.ensureActiveKey();
  }
}

/** The service's key upkeep: the first key at start. Not in the CLI (it only acts when asked). */
@Module({ imports: [KeysModule], providers: [ActiveKeyOnStart] })
export class KeyMaintenanceModule {}
