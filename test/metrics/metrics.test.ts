import { describe, expect, it } from 'vitest';
import { createMetrics, type NetworkMetricsSnapshot } from '../../src/metrics/metrics.js';
import { parseExposition, PROM_CLIENT_GAUGE_TOTALS, valueOf } from './prom-text.js';

function network(over: Partial<NetworkMetricsSnapshot> = {}): NetworkMetricsSnapshot {
  return {
    peersByType: { M: 2, R: 1 },
    framesIn: { hello: 3, inventory2: 7 },
    framesOut: { helloData: 3 },
    dedupHits: 4,
    admissionRefused: 1,
    admissionWaiting: 2,
    lightQuestions: { served: 1, proxied: 0, asked: 0, unanswered: 0, dropped: 0, offChain: 0 },
    syncLagBlocks: 0,
    syncDeepFork: 0,
    sendQueueBytes: 0,
    ...over,
  };
}

function node() {
  const m = createMetrics({ version: '1.0', wasmFlavour: 'simd' });
  m.setTransport('node:http');
  m.setChainSource(() => ({ height: 5, pending: 1 }));
  m.setMessagingSource(() => ({ received: 1, dropped: 2, sent: 3, expired: 0, mqPublished: 4, mqDropped: 0 }));
  m.observeCall('status', 'ok', 0.001);
  m.observeCall(null, 'error', 0.001);
  return m;
}

describe('metrics exposition (Prometheus text format 0.0.4)', () => {
  it('parses strictly, with the content type Prometheus negotiates', async () => {
    const m = node();
    m.setNetworkSource(() => network());
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4(;|$)/);
    const families = parseExposition(await m.render(), { gaugeTotalAllowed: PROM_CLIENT_GAUGE_TOTALS });
    expect(families.get('dltnode_rpc_requests_total')?.type).toBe('counter');
    expect(valueOf(families, 'dltnode_block_height')).toBe(5);
  });

  it('exports totals since start as counters named *_total, figures of now as gauges', async () => {
    const m = node();
    m.setNetworkSource(() => network());
    const families = parseExposition(await m.render(), { gaugeTotalAllowed: PROM_CLIENT_GAUGE_TOTALS });
    const type = (name: string) => families.get(`dltnode_${name}`)?.type;
    for (const name of ['p2p_frames_total', 'gossip_dedup_hits_total', 'gossip_admission_refused_total', 'light_questions_total', 'messaging_stream_messages_total', 'mq_events_total']) {
      expect([name, type(name)]).toEqual([name, 'counter']);
    }
    for (const name of ['peers', 'gossip_admission_waiting', 'sync_lag_blocks', 'p2p_send_queue_bytes', 'block_height', 'pending_transactions', 'rpc_in_flight_requests']) {
      expect([name, type(name)]).toEqual([name, 'gauge']);
    }
    expect(valueOf(families, 'dltnode_p2p_frames_total', { direction: 'in', message: 'inventory2' })).toBe(7);
    expect(valueOf(families, 'dltnode_gossip_dedup_hits_total')).toBe(4);
    expect(valueOf(families, 'dltnode_light_questions_total', { outcome: 'served' })).toBe(1);
    expect(valueOf(families, 'dltnode_messaging_stream_messages_total', { outcome: 'dropped' })).toBe(2);
    expect(valueOf(families, 'dltnode_mq_events_total', { outcome: 'published' })).toBe(4);
  });

  it('follows the sources scrape after scrape, and shows 0 without a network', async () => {
    const m = node();
    let snap: NetworkMetricsSnapshot | null = null;
    m.setNetworkSource(() => snap);
    const read = async () => parseExposition(await m.render(), { gaugeTotalAllowed: PROM_CLIENT_GAUGE_TOTALS });
    expect(valueOf(await read(), 'dltnode_gossip_dedup_hits_total')).toBe(0);
    snap = network({ dedupHits: 9, framesIn: { hello: 5 } });
    const f = await read();
    expect(valueOf(f, 'dltnode_gossip_dedup_hits_total')).toBe(9);
    expect(valueOf(f, 'dltnode_p2p_frames_total', { direction: 'in', message: 'hello' })).toBe(5);
    expect(valueOf(f, 'dltnode_p2p_frames_total', { direction: 'in', message: 'inventory2' })).toBeUndefined();
  });

  it('shows every peer type, 0 when none is linked (an alert on no master link needs the series)', async () => {
    const m = node();
    let snap: NetworkMetricsSnapshot | null = network({ peersByType: { M: 2, R: 1 } });
    m.setNetworkSource(() => snap);
    const read = async () => parseExposition(await m.render(), { gaugeTotalAllowed: PROM_CLIENT_GAUGE_TOTALS });
    expect(valueOf(await read(), 'dltnode_peers', { type: 'C' })).toBe(0);
    snap = network({ peersByType: { R: 1 } }); // the master links dropped
    const f = await read();
    expect([valueOf(f, 'dltnode_peers', { type: 'M' }), valueOf(f, 'dltnode_peers', { type: 'R' })]).toEqual([0, 1]);
    snap = null; // no network yet
    expect(valueOf(await read(), 'dltnode_peers', { type: 'M' })).toBe(0);
  });

  it('escapes label values a peer chooses (backslash, quote, newline)', async () => {
    const m = node();
    const odd = 'a\\b"c\nd';
    m.setNetworkSource(() => network({ peersByType: { [odd]: 1 } }));
    const families = parseExposition(await m.render(), { gaugeTotalAllowed: PROM_CLIENT_GAUGE_TOTALS });
    expect(valueOf(families, 'dltnode_peers', { type: odd })).toBe(1);
  });
});

describe('the strict reader the tests use (test/metrics/prom-text.ts)', () => {
  const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="q\\\\\\"\\n"} 1\n';
  it('reads a valid exposition, unescaping label values', () => {
    expect(valueOf(parseExposition(ok), 'a_total', { x: 'q\\"\n' })).toBe(1);
    expect(valueOf(parseExposition('g NaN\nh +Inf 123\n'), 'h')).toBe(Infinity);
  });
  it.each([
    ['no final newline', 'a 1'],
    ['a second TYPE', '# TYPE a gauge\n# TYPE a gauge\na 1\n'],
    ['a second HELP', '# HELP a x\n# HELP a y\na 1\n'],
    ['TYPE after the samples', 'a 1\n# TYPE a gauge\n'],
    ['a family resumed', 'a 1\nb 1\na{x="1"} 1\n'],
    ['a duplicate series', 'a{x="1",y="2"} 1\na{y="2",x="1"} 2\n'],
    ['an invalid label name', 'a{1x="1"} 1\n'],
    ['a reserved label name', 'a{__x="1"} 1\n'],
    ['an invalid escape', 'a{x="\\t"} 1\n'],
    ['a bad value', 'a 1,5\n'],
    ['a counter without _total', '# TYPE a counter\na 1\n'],
    ['a gauge named _total', '# TYPE a_total gauge\na_total 1\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['a histogram whose buckets fall', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
  ])('rejects %s', (_what, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});
