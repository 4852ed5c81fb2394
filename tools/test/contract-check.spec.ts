import { contractCheckFor, ContractViolation, openApiPath } from '../../libs/testing/src/contract';

const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '404': { description: 'no', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          '429': {
            description: 'slow down',
            headers: { 'Retry-After': { required: true, schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'at'],
        properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' }, n: { type: ['integer', 'null'] } },
      },
      Error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    },
  },
};

function run(
  status: number,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' },
  route = '/things/:id',
  method = 'GET',
) {
  const found: ContractViolation[] = [];
  const check = contractCheckFor('demo', document, (v) => found.push(v));
  check({ method, routeOptions: { url: route } }, { statusCode: status, getHeader: (name) => headers[name.toLowerCase()] }, JSON.stringify(body));
  return found.map((v) => `${v.operation} ${v.status}: ${v.problem}`);
}

describe('contract check of answers against the OpenAPI document', () => {
  it('maps Fastify routes to OpenAPI paths', () => {
    expect(openApiPath('/diamonds/:diamond_id/files/:kind')).toBe('/diamonds/{diamond_id}/files/{kind}');
  });

  it('accepts an answer that matches its documented status and schema (refs, formats, nullable types)', () => {
    expect(run(200, { id: 'a', at: '2024-03-01T10:00:00Z', n: null })).toEqual([]);
    expect(run(404, { message: 'no such thing' })).toEqual([]);
  });

  it('reports an undocumented status', () => {
    expect(run(409, { message: 'conflict' })).toEqual(['GET /things/{id} 409: status not documented (documented: 200, 404, 429)']);
  });

  it('reports a body that does not match the schema, naming where', () => {
    const [problem] = run(200, { id: 'a', at: 'yesterday' });
    expect(problem).toMatch(/^GET \/things\/\{id\} 200: body does not match the schema: \/at must match format "date-time"/);
    expect(run(200, { at: '2024-03-01T10:00:00Z' })[0]).toMatch(/must have required property 'id'/);
  });

  it('reports an undocumented content type and a missing required header', () => {
    expect(run(200, 'x', { 'content-type': 'text/plain' })).toEqual([
      'GET /things/{id} 200: content type text/plain not documented (documented: application/json)',
    ]);
    expect(run(429, { message: 'slow' })).toEqual(['GET /things/{id} 429: required header Retry-After missing']);
    expect(run(429, { message: 'slow' }, { 'content-type': 'application/json', 'retry-after': '1' })).toEqual([]);
  });

  it('leaves alone what the document does not describe (other routes, HEAD)', () => {
    expect(run(500, { boom: true }, undefined, '/health/live')).toEqual([]);
    expect(run(500, { boom: true }, undefined, '/things/:id', 'HEAD')).toEqual([]);
  });
});
