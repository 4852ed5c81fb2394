import { Registry } from 'prom-client';
import { counterOf, gaugeOf, histogramOf } from './metric';

describe('metricOf and its typed makers', () => {
  it('makes a metric once per registry and hands the same one to every later caller', async () => {
    const registry = new Registry();
    const a = counterOf<'outcome'>(registry, { name: 'demo_total', help: 'demo', labelNames: ['outcome'] });
    const b = counterOf<'outcome'>(registry, { name: 'demo_total', help: 'demo', labelNames: ['outcome'] });
    expect(b).toBe(a);
    a.inc({ outcome: 'ok' });
    b.inc({ outcome: 'ok' });
    expect(await registry.metrics()).toContain('demo_total{outcome="ok"} 2');
  });

  it('keeps registries apart, and makes gauges and histograms the same way', async () => {
    const one = new Registry();
    const two = new Registry();
    gaugeOf(one, { name: 'demo_gauge', help: 'demo' }).set(3);
    gaugeOf(two, { name: 'demo_gauge', help: 'demo' }).set(5);
    histogramOf(one, { name: 'demo_seconds', help: 'demo', buckets: [1] }).observe(0.5);
    expect(await one.metrics()).toMatch(/demo_gauge 3[\s\S]*demo_seconds_bucket\{le="1"\} 1/);
    expect(await two.metrics()).toContain('demo_gauge 5');
  });
});
