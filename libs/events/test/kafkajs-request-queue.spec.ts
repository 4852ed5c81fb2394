import { CHECK_PENDING_REQUESTS_INTERVAL_MS, fixKafkajsIdleTimer, kafkajsRequestQueue, KafkajsRequestQueue } from '../src';

/** kafkajs's RequestQueue with the parts these tests drive (push and fulfillRequest, as a broker connection does). */
type Queue = KafkajsRequestQueue & {
  push(request: { entry: object; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer | null; size: number }): void;
  maybeThrottle(ms: number): void;
  inflight: Map<number, unknown>;
};

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function queue(maxInFlightRequests: number | null = null): Queue {
  const RequestQueue = kafkajsRequestQueue();
  return new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'b:9092',
    logger: silent,
  }) as Queue;
}

/** A request as a connection pushes it; `sent` lists the correlation ids in the order they went out. */
function request(correlationId: number, sent: number[]) {
  return {
    entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => void sent.push(correlationId),
  };
}

describe("kafkajs's request queue (fixKafkajsIdleTimer: no 1 ms timer per idle broker connection)", () => {
  beforeAll(() => {
    expect(fixKafkajsIdleTimer()).toBe(true);
  });

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is applied once: a second call finds it in place', () => {
    const method = kafkajsRequestQueue().prototype.scheduleCheckPendingRequests;
    expect(fixKafkajsIdleTimer()).toBe(true);
    expect(kafkajsRequestQueue().prototype.scheduleCheckPendingRequests).toBe(method);
    expect(String(method)).not.toContain('let scheduleAt');
  });

  it('sets no timer once a response leaves nothing waiting (kafkajs 2.2.4 set a 1 ms one, again and again)', () => {
    const q = queue();
    const sent: number[] = [];
    q.push(request(1, sent));
    expect(sent).toEqual([1]);
    const checks = jest.spyOn(q, 'checkPendingRequests');
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(1000);
    // Only the response's own check: no timer ran it again.
    expect(checks).toHaveBeenCalledTimes(1);
  });

  it('holds a request while the broker throttles and sends it when the throttle ends, then stops checking', () => {
    const q = queue();
    const sent: number[] = [];
    q.maybeThrottle(50);
    q.push(request(7, sent));
    expect(sent).toEqual([]);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([7]);
    expect(q.pending).toHaveLength(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('over the in-flight limit, rechecks every 10 ms while a request waits and sends it as soon as a slot frees', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(1, sent));
    q.push(request(2, sent));
    expect(sent).toEqual([1]);
    const checks = jest.spyOn(q, 'checkPendingRequests');
    jest.advanceTimersByTime(CHECK_PENDING_REQUESTS_INTERVAL_MS * 3);
    expect(checks).toHaveBeenCalledTimes(3);
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(sent).toEqual([1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: null, size: 0 });
    // The timer set while request 2 waited may still run once; after it nothing is left.
    jest.advanceTimersByTime(CHECK_PENDING_REQUESTS_INTERVAL_MS);
    expect(jest.getTimerCount()).toBe(0);
  });
});
