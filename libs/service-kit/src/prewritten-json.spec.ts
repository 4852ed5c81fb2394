import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { kitApp } from '../test/support/kit-app';
import { PrewrittenJson } from './prewritten-json';

const value = { a: 1, text: 'r\u00e9\u{1F48E}"\\\n', nested: { list: [1, null, 'x'] } };

@Controller('pw')
class PrewrittenController {
  @Get('object')
  object() {
    return value;
  }

  @Get('prewritten')
  prewritten() {
    return new PrewrittenJson(value, JSON.stringify(value));
  }

  /** A text that is not JSON.stringify's for its value (spaces): tells apart sending the text from writing the value. */
  @Get('spaced')
  spaced() {
    return new PrewrittenJson({ a: 1 }, '{"a": 1}');
  }
}

@Module({ controllers: [PrewrittenController] })
class PrewrittenModule {}

const CHECK = Symbol.for('dtp.prewrittenJsonCheck');
type Globals = { [CHECK]?: (d: { target: string; message: string }) => void };

describe('PrewrittenJson: an answer sent as the JSON text already written for it', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await kitApp('prewritten-test', PrewrittenModule);
  });
  afterAll(() => app.close());

  it('answers exactly what the value itself is answered with: the same body and content type', async () => {
    const [plain, written] = await Promise.all([app.inject({ url: '/pw/object' }), app.inject({ url: '/pw/prewritten' })]);
    expect(written.statusCode).toBe(200);
    expect(written.body).toBe(plain.body);
    expect(written.body).toBe(JSON.stringify(value));
    expect(written.headers['content-type']).toBe(plain.headers['content-type']);
    expect(written.headers['content-length']).toBe(plain.headers['content-length']);
  });

  it('sends its text as it is, and a test hears of a text that is not its value JSON.stringify-ed', async () => {
    const globals = globalThis as Globals;
    const installed = globals[CHECK];
    const heard: { target: string; message: string }[] = [];
    globals[CHECK] = (d) => heard.push(d);
    try {
      const res = await app.inject({ url: '/pw/spaced' });
      expect(res.body).toBe('{"a": 1}');
      expect(heard).toEqual([{ target: 'PrewrittenJson', message: expect.stringContaining('{"a":1}') as unknown as string }]);
      heard.length = 0;
      await app.inject({ url: '/pw/prewritten' });
      expect(heard).toEqual([]);
    } finally {
      globals[CHECK] = installed;
    }
  });

  it('is written as its value by anything else that writes it (JSON.stringify: toJSON)', () => {
    expect(JSON.stringify({ answer: new PrewrittenJson(value, 'not used') })).toBe(JSON.stringify({ answer: value }));
  });
});
