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
    expect(finishedSchema({ n: { type: 'integer', nullable: false } }).n).toEqual({ type: 'integer', format: 'int64' });
  });
});

describe('finishDocument: the bounds a schema implies, stated for linters and generators', () => {
  it('an integer whose range fits 32 bits is int32; any other integer (unbounded, or wider) is int64; a format given stays', () => {
    const p = finishedSchema({
      small: { type: 'integer', minimum: 1, maximum: 500 },
      open: { type: 'integer', minimum: 0 },
      wide: { type: ['integer', 'null'], minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      edge: { type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 },
      given: { type: 'integer', format: 'int32' },
    });
    expect([p.small.format, p.open.format, p.wide.format, p.edge.format, p.given.format]).toEqual(['int32', 'int64', 'int64', 'int64', 'int32']);
  });

  it('a string whose pattern is one character class repeated at most n times gets maxLength n; a uuid 36; others none', () => {
    const p = finishedSchema({
      id: { type: 'string', pattern: '^[a-z0-9]{20,98}$' },
      share: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' },
      uuid: { type: 'string', format: 'uuid' },
      free: { type: 'string', pattern: '^\\S(?:[\\s\\S]*\\S)?$' },
      open: { type: 'string', pattern: '^[a-z]+$' },
      kept: { type: 'string', pattern: '^[a-z]{1,9}$', maxLength: 5 },
    });
    expect([p.id.maxLength, p.share.maxLength, p.uuid.maxLength, p.free.maxLength, p.open.maxLength, p.kept.maxLength]).toEqual([
      98,
      22,
      36,
      undefined,
      undefined,
      5,
    ]);
  });

  it('examples are data, not schemas: left as they are', () => {
    const p = finishedSchema({ o: { type: 'object', example: { type: 'integer', pattern: '^[a]{2}$' } } });
    expect(p.o.example).toEqual({ type: 'integer', pattern: '^[a]{2}$' });
  });
});

describe('finishDocument: top-level tags and servers', () => {
  const op = (tag: string) => ({ tags: [tag], responses: { '200': { description: 'ok' } } });
  const finish = (tags?: Record<string, string>) =>
    finishDocument(
      {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        servers: [{ url: 'http://localhost:1' }],
        paths: { '/a': { get: op('alpha') }, '/b': { post: op('beta') }, '/c': { get: op('gamma') } },
      } as unknown as OpenAPIObject,
      tags,
    ) as unknown as { tags: { name: string; description?: string }[]; servers: Record<string, unknown>[] };

  it('lists every tag an operation uses: the described ones first, in the given order, then the others by name; unused descriptions are left out', () => {
    expect(finish({ gamma: 'G.', beta: 'B.', unused: 'U.' }).tags).toEqual([
      { name: 'gamma', description: 'G.' },
      { name: 'beta', description: 'B.' },
      { name: 'alpha' },
    ]);
  });

  it('servers are marked public (x-internal: false)', () => {
    expect(finish().servers).toEqual([{ url: 'http://localhost:1', 'x-internal': false }]);
  });
});
