import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { boundedJsonText, storableText } from '../bounded-json';
import type { IncomingMessage } from '../transport';
import { errorText, isTransientError } from './errors';
import type { Park } from './types';

/** Longest excerpt of a parked message kept in `parked_events.raw` when the payload itself cannot be kept. */
export const RAW_KEEP_CHARS = 64 * 1024;

/** A row of `parked_events` as far as the message goes: its payload as JSON, or (an excerpt of) its text. */
export interface ParkedRow {
  payload: string | null;
  raw: string | null;
}

/** Anything that runs a query: the DataSource, or a consumer transaction (Tx). */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/**
 * The rows that may be kept for a parked message, in decreasing fidelity: the payload as JSON (and the value as
 * text when it is not JSON); for a too large or too deep value only the start of its text; at last the reason alone.
 */
export function parkedRows(message: IncomingMessage, park: Park): ParkedRow[] {
  const rawText = () => (message.raw ? storableText(message.raw.subarray(0, RAW_KEEP_CHARS).toString('utf8'), RAW_KEEP_CHARS) : null);
  const excerpt = () => {
    if (message.raw) return rawText();
    const value = message.value;
    if (value === null || value === undefined) return null;
    return storableText(typeof value === 'string' ? value : boundedJsonText(value, RAW_KEEP_CHARS), RAW_KEEP_CHARS);
  };
  const rows: ParkedRow[] = [];
  if (park.reason !== 'too_large' && park.reason !== 'too_deep') {
    try {
      const value = message.value;
      const payload = value !== null && typeof value === 'object' ? JSON.stringify(value) : null;
      const raw = payload === null && value !== null && value !== undefined ? storableText(String(value), RAW_KEEP_CHARS) : null;
      rows.push({ payload, raw });
    } catch {
      // Not serializable as is: the excerpt below.
    }
  }
  try {
    rows.push({ payload: null, raw: excerpt() });
  } catch {
    // Nothing readable: the reason alone.
  }
  rows.push({ payload: null, raw: null });
  return rows;
}

/**
 * `parked_events` of one consumer (`stateName`): messages that cannot be applied, kept with their reason so that an
 * operator can inspect and replay them, while the partition moves on.
 */
export class ParkedStore {
  constructor(
    private readonly stateName: string,
    private readonly dataSource: DataSource,
    private readonly log: Logger,
  ) {}

  /** Inserts one row for `message` through `db` (the DataSource, or a batch's transaction). */
  async insert(db: Queryable, message: IncomingMessage, park: Park, row: ParkedRow): Promise<void> {
    await db.query(
      `INSERT INTO parked_events (consumer, topic, key, partition, "offset", payload, raw, reason)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
      [this.stateName, message.topic, storableText(message.key, 1000), message.partition, message.offset, row.payload, row.raw, storableText(park.text, 4000)],
    );
  }

  /**
   * Parks `message` on its own: stores the most faithful row the database takes (a payload with NUL or lone
   * surrogates is refused by jsonb: then an excerpt as text). A temporary database failure is thrown (the message
   * comes again), as is any failure once `closing()` says the consumer is closing; if no row at all can be stored,
   * that is logged and the partition still moves on.
   */
  async park(message: IncomingMessage, park: Park, closing: () => boolean): Promise<void> {
    let stored = false;
    for (const row of parkedRows(message, park)) {
      try {
        await this.insert(this.dataSource, message, park, row);
        stored = true;
        break;
      } catch (err) {
        if (isTransientError(err) || closing()) throw err;
        this.log.debug({ err: errorText(err) }, 'parked row refused; storing less of it');
      }
    }
    if (!stored)
      this.log.error(
        { key: message.key, partition: message.partition, offset: message.offset, reason: park.reason },
        'could not store the parked event; moving on',
      );
    this.logParked(message, park);
  }

  /** The warn line of every parked message. */
  logParked(message: IncomingMessage, park: Park): void {
    this.log.warn(
      { key: message.key, partition: message.partition, offset: message.offset, reason: park.reason, detail: park.text.slice(0, 1000) },
      'event parked: cannot be applied',
    );
  }
}
