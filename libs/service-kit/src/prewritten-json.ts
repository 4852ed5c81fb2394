import type { FastifyInstance } from 'fastify';

/**
 * A handler's answer whose JSON text was already written, by code that wrote the same value's JSON for something
 * else (a registration's record for its event): the reply sends `text` as it is instead of writing the value a second
 * time. `toJSON` gives the value, so whatever else writes the answer (the Idempotency-Key store, a test) writes the
 * same JSON as for the value itself. `text` must be `JSON.stringify(value)`, and the value not changed after: in tests
 * every answer sent this way is compared with JSON.stringify's (tools/testing/contract-setup.ts).
 */
export class PrewrittenJson<T> {
  constructor(
    readonly value: T,
    readonly text: string,
  ) {}

  toJSON(): T {
    return this.value;
  }
}

/** Set by a test setup: told of every PrewrittenJson whose text is not what JSON.stringify writes for its value. */
const CHECK = Symbol.for('dtp.prewrittenJsonCheck');
type Globals = { [CHECK]?: (d: { target: string; message: string }) => void };

/**
 * The reply serializer of every service: JSON.stringify (what Fastify writes for a route without a response schema,
 * and no route here has one; a serializer set this way would also take the place of one), except for a
 * PrewrittenJson, which is sent as its text.
 */
export function registerPrewrittenJson(fastify: FastifyInstance): void {
  fastify.setReplySerializer((payload) => {
    if (!(payload instanceof PrewrittenJson)) return JSON.stringify(payload);
    const check = (globalThis as Globals)[CHECK];
    if (check) {
      const written = JSON.stringify(payload.value);
      if (written !== payload.text)
        check({ target: 'PrewrittenJson', message: `its text ${payload.text.slice(0, 200)} is not its value's ${written.slice(0, 200)}` });
    }
    return payload.text;
  });
}
