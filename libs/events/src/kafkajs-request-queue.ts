/**
 * A fix for kafkajs 2.2.4 (its last release): every broker connection ran a timer once a millisecond for as long as
 * it stayed open, whether or not it had anything to send.
 *
 * Each connection has a RequestQueue. After every response it calls checkPendingRequests(), which ends with
 * scheduleCheckPendingRequests(). That method meant to set a timer only while requests wait (throttled by the
 * broker, or over the in-flight limit), but with nothing waiting it set one anyway, for `throttledUntil - now`
 * milliseconds: a negative delay, so 1 ms. The timer calls checkPendingRequests() again, which sets the next one.
 * Upstream: tulios/kafkajs issues #1556 and #1704, pull request #1667 (open; the project is no longer maintained).
 *
 * Measured on one idle KafkaTransport with one subscription against the test peer: 2,700 timer callbacks a second
 * and 4 % of a core; each service idled at 2 to 5 % of a core, and paid the same under load (docs/events.md,
 * "kafkajs's idle timer").
 *
 * The replacement keeps what the timer is for: while requests wait, it checks again when the throttle ends, or
 * after CHECK_PENDING_REQUESTS_INTERVAL (10 ms, kafkajs's own value) when they wait for an in-flight slot. With
 * nothing waiting it sets no timer: push() schedules one when a request has to wait, and every response calls
 * checkPendingRequests() itself.
 */

/** The fields of kafkajs's RequestQueue that the scheduler reads and writes. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL (not exported by it). */
export const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The statement that gives the bug away in kafkajs's own scheduleCheckPendingRequests. */
const BUGGY_SOURCE =
  /let scheduleAt = this\.throttledUntil - Date\.now\(\)[\s\S]*if \(this\.pending\.length > 0\) \{\s*scheduleAt = [^}]*\}\s*this\.throttleCheckTimeoutId = setTimeout/;

const PATCHED = Symbol.for('dtp.kafkajs.requestQueue.patched');

/** kafkajs's RequestQueue class (a deep import: the package has no exports map, and 2.2.4 is its last release). */
export function kafkajsRequestQueue(): { prototype: KafkajsRequestQueue } & (new (options: object) => KafkajsRequestQueue) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('kafkajs/src/network/requestQueue');
}

/** Sets the next check only while requests wait; see the module comment. */
function scheduleCheckPendingRequests(this: KafkajsRequestQueue): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

/**
 * Replaces RequestQueue.prototype.scheduleCheckPendingRequests, once per process, when the installed kafkajs still
 * has the faulty one (recognised by its source). Returns whether the replacement is in place: false means a kafkajs
 * whose scheduler is not the one this fixes, left as it is.
 */
export function fixKafkajsIdleTimer(): boolean {
  const proto = kafkajsRequestQueue().prototype as KafkajsRequestQueue & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return true;
  if (!BUGGY_SOURCE.test(String(proto.scheduleCheckPendingRequests))) return false;
  proto.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  proto[PATCHED] = true;
  return true;
}
