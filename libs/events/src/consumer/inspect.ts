import { EnvelopeOf, EnvelopeValidation, scanJson } from '@dtp/domain';
import type { IncomingMessage } from '../transport';
import { errorText } from './errors';
import type { Park } from './types';

/** What a message is, found before any transaction: a tombstone, one to park (and why), or a valid event. */
export type Inspection<T extends string = string> = { kind: 'tombstone' } | { kind: 'park'; park: Park } | { kind: 'event'; envelope: EnvelopeOf<T> };

export interface InspectLimits<T extends string> {
  /** Largest value in bytes (a bigger one: `too_large`, before it is decoded). */
  maxMessageBytes: number;
  /** Deepest nesting, the envelope being level 1 (a deeper one: `too_deep`, before validation recurses). */
  maxDepth: number;
  /** The envelope and payload contract of the topic (validateEnvelope). */
  validate: (topic: T, value: unknown) => EnvelopeValidation<T>;
}

const park = (reason: Park['reason'], text: string): Inspection<never> => ({ kind: 'park', park: { reason, text } });

/**
 * Everything about a message before any transaction, without ever throwing: its size (before decoding), its
 * depth (iteratively, before validation recurses), its envelope and payload contract, its key.
 */
export function inspectMessage<T extends string>(message: IncomingMessage, limits: InspectLimits<T>): Inspection<T> {
  const { maxMessageBytes, maxDepth } = limits;
  try {
    if (message.raw === null) return { kind: 'tombstone' };
    if (message.raw && message.raw.length > maxMessageBytes) {
      return park('too_large', `too_large: ${message.raw.length} bytes, more than the ${maxMessageBytes} a message may have`);
    }
    let value = message.value;
    if (value === null || value === undefined) return { kind: 'tombstone' };
    if (typeof value === 'string' || value instanceof Uint8Array) {
      const text = typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
      const bytes = message.raw ? message.raw.length : Buffer.byteLength(text, 'utf8');
      if (bytes > maxMessageBytes) return park('too_large', `too_large: ${bytes} bytes, more than the ${maxMessageBytes} a message may have`);
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        return park('invalid', 'invalid event: message value is not valid JSON');
      }
    }
    const scan = scanJson(value, { maxDepth, maxBytes: message.raw ? undefined : maxMessageBytes, maxIssues: 1 });
    const issue = scan.issues[0];
    if (issue?.kind === 'too_deep') {
      const more = issue.path.length > 8 ? ` … (${issue.path.length - 8} more)` : '';
      const at = `${issue.path.slice(0, 8).join('.')}${more}`;
      return park('too_deep', `too_deep: nested more than ${maxDepth} levels, at ${at}`);
    }
    if (issue?.kind === 'too_large') {
      return park('too_large', `too_large: about ${scan.bytes} bytes as JSON, more than the ${maxMessageBytes} a message may have`);
    }
    const checked = limits.validate(message.topic as T, value);
    if (!checked.ok) return park('invalid', `invalid event: ${checked.reason}`);
    if (message.key && checked.envelope.key !== message.key) {
      return park('invalid', `message key ${message.key} differs from envelope key ${checked.envelope.key}`);
    }
    return { kind: 'event', envelope: checked.envelope };
  } catch (err) {
    return park('undecodable', `undecodable: decoding or validating it failed: ${errorText(err)}`);
  }
}
