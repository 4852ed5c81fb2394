import type { OpenAPIObject } from '@nestjs/swagger';
import { finishDocument } from './openapi';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function finishedSchema(properties: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const doc = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { T: { type: 'object', properties } } } };
  const out = finishDocument(doc as unknown as OpenAPIObject) as unknown as {
    components: { schemas: { T: { properties: Record<string, Record<string, unknown>> } } };
  };
  return out.components.schemas.T.properties;
}

describe('finishDocument: nullable (3.0) becomes 3.1', () => {
  it('a nullable scalar gets a null member in its type (and in its enum)', () => {
    const p = finishedSchema({ s: { type: 'string', nullable: true }, e: { type: 'string', enum: ['a'], nullable: true } });
    expect(p.s).toEqual({ type: ['string', 'null'] });
    expect(p.e).toEqual({ type: ['string', 'null'], enum: ['a', null] });
  });

  it('a nullable nested class (`type: object` with allOf $ref, as @nestjs/swagger writes it) becomes oneOf [class, null]', () => {
    const p = finishedSchema({ c: { type: 'object', nullable: true, allOf: [ref('C')], description: 'd' } });
    expect(p.c).toEqual({ description: 'd', oneOf: [ref('C'), { type: 'null' }] });
  });

  it('a nullable named enum (allOf with its one $ref) becomes oneOf [enum, null]', () => {
    const p = finishedSchema({ e: { nullable: true, allOf: [ref('Colour')], example: 'G' } });
    expect(p.e).toEqual({ example: 'G', oneOf: [ref('Colour'), { type: 'null' }] });
  });

  it('a nullable $ref or composition without a type becomes oneOf [it, null]', () => {
    const p = finishedSchema({ r: { $ref: '#/components/schemas/E', nullable: true }, o: { oneOf: [{ type: 'number' }, { type: 'string' }], nullable: true } });
    expect(p.r).toEqual({ oneOf: [ref('E'), { type: 'null' }] });
    expect(p.o).toEqual({ oneOf: [{ oneOf: [{ type: 'number' }, { type: 'string' }] }, { type: 'null' }] });
  });

  it('`nullable: false` is dropped', () => {
    expect(finishedSchema({ n: { type: 'integer', nullable: false } }).n).toEqual({ type: 'integer' });
  });
});
