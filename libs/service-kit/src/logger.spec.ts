import { Writable } from 'node:stream';
import { createLogger, resolveLogFormat } from './logger';

function capture() {
  const out = { text: '' };
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out.text += chunk.toString();
      cb();
    },
  });
  return { out, stream };
}

describe('LOG_FORMAT', () => {
  it('is pretty on a terminal and JSON elsewhere unless set', () => {
    expect(resolveLogFormat(undefined, true)).toBe('pretty');
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat(undefined, false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('pretty: one readable line per event with the service, the level and the fields, secrets redacted', () => {
    const { out, stream } = capture();
    const log = createLogger('platform', 'info', 'pretty', stream as never);
    log.info({ reqId: 'req-1', req: { headers: { authorization: 'Bearer secret-token' } } }, 'request completed');
    log.debug('not at this level');
    const lines = out.text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: platform \| request completed /);
    expect(lines[0]).toContain('"reqId":"req-1"');
    expect(lines[0]).toContain('[redacted]');
    expect(lines[0]).not.toContain('secret-token');
    expect(() => JSON.parse(lines[0])).toThrow();
  });

  it('json: one JSON object per line with level label, service and ISO time', () => {
    const { out, stream } = capture();
    const log = createLogger('search', 'info', 'json', stream as never);
    log.warn({ reqId: 'req-2' }, 'slow');
    const line = JSON.parse(out.text.trim());
    expect(line).toMatchObject({ level: 'warn', service: 'search', reqId: 'req-2', msg: 'slow' });
    expect(Number.isNaN(Date.parse(line.time))).toBe(false);
  });
});
