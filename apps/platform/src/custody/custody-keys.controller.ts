import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CustodyKeysResponse } from '@dtp/domain';
import { ApiErrors, Public } from '@dtp/service-kit';
import { CustodyKeys } from './custody-keys';

const CACHE = 'public, max-age=300';

/** The public keys of the custody log's checkpoints: anyone verifies a checkpoint offline with them. */
@ApiTags('custody')
@Controller()
export class CustodyKeysController {
  constructor(private readonly keys: CustodyKeys) {}

  @Get('.well-known/custody-keys.json')
  @Public()
  @Header('Cache-Control', CACHE)
  @Header('Access-Control-Allow-Origin', '*')
  @ApiOperation({
    operationId: 'getCustodyKeys',
    summary: 'Public keys that verify custody checkpoints (JWKS)',
    description:
      'No token. The Ed25519 keys (EdDSA) whose signatures custody checkpoints carry (JWS compact, `kid` in the ' +
      'protected header; payload the RFC 8785 JSON of `{log_id, tree_size, root_hash, timestamp}`). Readable from ' +
      'any origin (a browser verifies a diamond passport with it).',
  })
  @ApiOkResponse({
    description: 'The key set (RFC 7517).',
    type: CustodyKeysResponse,
    headers: {
      'Cache-Control': { description: `\`${CACHE}\`.`, required: true, schema: { type: 'string' } },
      'Access-Control-Allow-Origin': { description: '`*`.', required: true, schema: { type: 'string' } },
    },
    example: {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
          kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
          alg: 'EdDSA',
          use: 'sig',
        },
      ],
    },
  })
  @ApiErrors({ 503: 'The database cannot be reached right now; retry after `Retry-After` seconds.' })
  jwks(): Promise<CustodyKeysResponse> {
    return this.keys.jwks() as Promise<CustodyKeysResponse>;
  }
}
