import { ApiProperty } from '@nestjs/swagger';

/** One public key of the custody JWKS (RFC 7517, RFC 8037): an Ed25519 key that verifies checkpoint JWS. */
export class CustodyJwk {
  @ApiProperty({ enum: ['OKP'], example: 'OKP' })
  kty!: 'OKP';

  @ApiProperty({ enum: ['Ed25519'], example: 'Ed25519' })
  crv!: 'Ed25519';

  @ApiProperty({ description: 'The public key, base64url.', pattern: '^[A-Za-z0-9_-]+$', example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })
  x!: string;

  @ApiProperty({
    description: 'The key id, named in the protected header of the checkpoints it signed.',
    example: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
  })
  kid!: string;

  @ApiProperty({ enum: ['EdDSA'], example: 'EdDSA' })
  alg!: 'EdDSA';

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use!: 'sig';
}

/** `GET {base_url}/.well-known/custody-keys.json`. */
export class CustodyKeysResponse {
  @ApiProperty({
    type: () => CustodyJwk,
    isArray: true,
    description: 'The key that signs custody checkpoints now, then any other key that signed earlier ones.',
  })
  keys!: CustodyJwk[];
}
